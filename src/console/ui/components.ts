import { html } from 'htm/preact'
import { useState } from 'preact/hooks'

/** Copies text to the clipboard: the Clipboard API where the page may use it, else a selection. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard !== undefined && window.isSecureContext) {
    await navigator.clipboard.writeText(text)
    return
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.className = 'offscreen'
  document.body.append(area)
  area.select()
  document.execCommand('copy')
  area.remove()
}

/** A button that copies `text`, and says so (to screen readers too). */
export function CopyButton(props: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = () => {
    copyText(props.text).then(
      () => setState('copied'),
      () => setState('failed'),
    )
    setTimeout(() => setState('idle'), 2000)
  }
  return html`<button type="button" class="copy" onClick=${copy} aria-label=${props.label}>
    ${state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
  </button>`
}

/**
 * A block of code with a copy button. The button sits in a bar above the code, never over it, and
 * long lines wrap (the copied text keeps them whole), so a key or an address at the end of a line
 * is on screen at any width.
 */
export function CodeBlock(props: { code: string; label: string; language?: string }) {
  return html`<div class="code">
    <div class="code-bar">
      <span class="language">${props.language === 'text' ? '' : (props.language ?? '')}</span>
      <${CopyButton} text=${props.code} label=${`Copy ${props.label}`} />
    </div>
    <pre
      tabindex="0"
      aria-label=${props.label}
    ><code data-language=${props.language ?? ''}>${props.code}</code></pre>
  </div>`
}

/** A message the page shows, announced to screen readers. */
export function Notice(props: { kind: 'error' | 'info' | 'ok'; text: string | null | undefined }) {
  if (props.text === null || props.text === undefined || props.text === '') return null
  return html`<p
    class=${`notice ${props.kind}`}
    role=${props.kind === 'error' ? 'alert' : 'status'}
  >
    ${props.text}
  </p>`
}

/** A labelled input. */
export function Field(props: {
  id: string
  label: string
  value: string
  onInput: (value: string) => void
  type?: string
  hint?: string
  placeholder?: string
  min?: string
  step?: string
  required?: boolean
  autocomplete?: string
}) {
  const hintId = props.hint === undefined ? undefined : `${props.id}-hint`
  return html`<div class="field">
    <label for=${props.id}>${props.label}</label>
    <input
      id=${props.id}
      type=${props.type ?? 'text'}
      value=${props.value}
      placeholder=${props.placeholder}
      min=${props.min}
      step=${props.step}
      required=${props.required}
      autocomplete=${props.autocomplete ?? 'off'}
      aria-describedby=${hintId}
      onInput=${(event: Event) => props.onInput((event.target as HTMLInputElement).value)}
    />
    ${props.hint === undefined ? null : html`<small id=${hintId}>${props.hint}</small>`}
  </div>`
}

/** What a page shows while its one request is on its way, or when it failed. */
export function Loading(props: { error: string | null }) {
  return props.error === null
    ? html`<p class="loading" role="status">Loading…</p>`
    : html`<${Notice} kind="error" text=${props.error} />`
}
