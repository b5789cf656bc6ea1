// `lift serve` as the background remover of a web editor: removeBackground() is the plain fetch()
// call; liftProvider() wraps it as the custom provider of IMG.LY CE.SDK's background-removal plugin
// (@imgly/plugin-background-removal-web: BackgroundRemovalPlugin({ provider })).
// docs/server.md ("Editor integration") shows this file; Tools/integration/browser_check.py runs it
// in Chromium from another origin against a real `lift serve --cors-origin '*'`.

/**
 * Sends `photo` (a Blob or File: JPEG, PNG, …) to lift serve's POST /api/remove and resolves to the
 * cut-out, a PNG Blob of the photo's size (unless `options` crop or scale it).
 * @param {Blob} photo
 * @param {object} how
 * @param {string} how.server   lift serve's origin, e.g. 'https://lift.example.com'
 * @param {string} [how.token]  the bearer token of `lift serve --token`
 * @param {object} [how.options] /api/remove's options, e.g. { quality: 'accurate', crop: 'true' }
 * @param {object} [how.headers] more request headers, e.g. { traceparent } (within the server's CORS list)
 * @throws {Error} with the server's message when it refuses the photo; a TypeError when the server
 *   cannot be reached or the browser's CORS check fails.
 */
export async function removeBackground(photo, { server, token, options = {}, headers = {} }) {
  const response = await fetch(`${server}/api/remove?${new URLSearchParams(options)}`, {
    method: 'POST',
    body: photo,
    headers: {
      'Content-Type': photo.type || 'application/octet-stream',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      message = (await response.json()).message || message;
    } catch { /* not JSON: keep the status line */ }
    throw new Error(`lift serve: ${message}`);
  }
  return response.blob();
}

/**
 * The plugin's custom provider: each image the editor asks about is fetched, cut out by lift serve,
 * and stored with `upload`, whose URI the editor then shows.
 * @param {object} how  `server`, `token`, `options` as for removeBackground, and
 * @param {(blob: Blob, originalURI: string) => Promise<string>} how.upload stores a cut-out and
 *   resolves to its URI (in CE.SDK: cesdk.unstable_upload, see docs/server.md)
 * @param {() => object} [how.headers] extra headers for each request (a new trace id each time)
 */
export function liftProvider({ server, token, options, upload, headers = () => ({}) }) {
  const cutOut = async (uri) => {
    const photo = await (await fetch(uri)).blob();
    return removeBackground(photo, { server, token, options, headers: headers() });
  };
  return {
    type: 'custom',
    processImageFileURI: async (imageFileURI) => upload(await cutOut(imageFileURI), imageFileURI),
    // The source set is sorted largest first: the largest is cut out, the others are that cut-out
    // scaled to their sizes (one request per image, every size with the same edges).
    processSourceSet: async (sourceSet) => {
      const [largest, ...others] = sourceSet;
      const cutout = await cutOut(largest.uri);
      const bitmap = await createImageBitmap(cutout);
      const scaled = await Promise.all(others.map(async (source) => {
        const canvas = new OffscreenCanvas(source.width, source.height);
        canvas.getContext('2d').drawImage(bitmap, 0, 0, source.width, source.height);
        return { ...source, uri: await upload(await canvas.convertToBlob({ type: 'image/png' }), source.uri) };
      }));
      return [{ ...largest, uri: await upload(cutout, largest.uri) }, ...scaled];
    },
  };
}
