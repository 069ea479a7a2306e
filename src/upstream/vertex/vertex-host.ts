/**
 * The base URL of Vertex AI in a location: `https://{region}-aiplatform.googleapis.com`, except
 * `global`, served by `aiplatform.googleapis.com` (`global-aiplatform.googleapis.com` does not
 * exist: it answers an HTML 404), and the multi-region locations `us` and `eu`, served by
 * `aiplatform.us.rep.googleapis.com` and `aiplatform.eu.rep.googleapis.com`.
 *
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/learn/locations
 */
export function vertexBaseUrl(region: string): string {
  if (region === 'global') return 'https://aiplatform.googleapis.com'
  if (region === 'us' || region === 'eu') return `https://aiplatform.${region}.rep.googleapis.com`
  return `https://${region}-aiplatform.googleapis.com`
}

/**
 * The path of a publisher's model in a project and location:
 * `/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}`. A model id
 * keeps its `@version` (`claude-sonnet-4-5@20250929`) as Google writes it; anything else that is
 * not a path character is encoded.
 */
export function vertexModelPath(
  project: string,
  region: string,
  publisher: 'google' | 'anthropic',
  model: string,
): string {
  const segment = (value: string) => encodeURIComponent(value).replace(/%40/g, '@')
  return `/v1/projects/${segment(project)}/locations/${segment(region)}/publishers/${publisher}/models/${segment(model)}`
}
