import { html } from 'htm/preact'
import { render } from 'preact'
import { App } from './app'

const root = document.getElementById('app')
if (root !== null) {
  root.textContent = ''
  render(html`<${App} />`, root)
}
