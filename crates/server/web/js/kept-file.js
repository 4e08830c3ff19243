// An SGF file opened on the replay page by a visitor not signed in, kept in this tab's sessionStorage so that the
// way back from the login page (`/replay?opened=TOKEN`, the sign-in links' `next`) shows it again, ready to be
// reviewed. One file at a time: a file opened later replaces it, and the page that shows it again forgets it. The
// storage is passed in (null when the browser refuses it). Tested with node.

/** The sessionStorage key: `{"token", "name", "data"}`, `data` the file's bytes in base64. */
export const KEPT_KEY = "tesuji.replay.file";
/** Files up to the server's limit for `/api/replay` are kept (1 MiB, about 1.4 M characters in base64). */
export const MAX_KEPT_BYTES = 1024 * 1024;

/** `bytes` (an ArrayBuffer or a typed array) in base64. */
export function toBase64(bytes) {
  const view = ArrayBuffer.isView(bytes)
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : new Uint8Array(bytes);
  let binary = "";
  // In slices: a whole megabyte spread into one call's arguments would overflow the stack.
  for (let i = 0; i < view.length; i += 0x8000) binary += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The bytes of base64 `text` (a Uint8Array), or null when it is not base64. */
export function fromBase64(text) {
  if (typeof text !== "string") return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** A new token naming a kept file: 16 random hexadecimal digits. */
export function newToken(random = globalThis.crypto) {
  const bytes = new Uint8Array(8);
  if (random?.getRandomValues) random.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A token as the address gives it, or null for anything else. */
export function keptToken(text) {
  const token = String(text ?? "");
  return /^[0-9a-f]{16}$/.test(token) ? token : null;
}

/** The replay page's address that shows the file kept under `token` again. */
export function keptAddress(token) {
  return `/replay?opened=${token}`;
}

/** Forgets the kept file, if any. */
export function forgetFile(storage) {
  try {
    storage?.removeItem(KEPT_KEY);
  } catch {
    // nothing kept then
  }
}

/** Keeps `bytes` (the file `name`) under `token`, in place of any file kept before; false when it cannot be kept
 * (too large, no storage, or the storage full), and then nothing stays kept. */
export function keepFile(storage, token, name, bytes) {
  forgetFile(storage);
  if (!storage || !keptToken(token) || !bytes || bytes.byteLength > MAX_KEPT_BYTES) return false;
  try {
    storage.setItem(KEPT_KEY, JSON.stringify({ token, name: String(name ?? ""), data: toBase64(bytes) }));
    return true;
  } catch {
    forgetFile(storage);
    return false;
  }
}

/** The file kept under `token` (`{name, bytes}`), forgotten as it is taken; null when none is. A file kept under
 * another token (opened since) stays; one that cannot be read is forgotten. */
export function takeFile(storage, token) {
  let kept = null;
  try {
    kept = JSON.parse(storage?.getItem(KEPT_KEY) ?? "null");
  } catch {
    forgetFile(storage);
    return null;
  }
  if (!kept || !token || kept.token !== token) return null;
  forgetFile(storage);
  const bytes = fromBase64(kept.data);
  return bytes ? { name: typeof kept.name === "string" ? kept.name : "", bytes } : null;
}
