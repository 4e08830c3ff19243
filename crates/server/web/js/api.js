// The JSON API of docs/API.md: fetch with the session cookie, the CSRF token on every POST, refusals as ApiError.

/** A refusal of the server: `error` is its readable sentence, `reason` its code (null when there was none). */
export class ApiError extends Error {
  constructor(status, error, reason) {
    super(error);
    this.status = status;
    this.reason = reason ?? null;
  }
}

let sessionPromise = null;

/** `{user, csrf}` of the current session, asked once per page (again with `refresh`). */
export function getSession(refresh = false) {
  if (!sessionPromise || refresh) {
    sessionPromise = request("GET", "/api/session").catch((e) => {
      sessionPromise = null; // a failed look-up is not remembered
      throw e;
    });
  }
  return sessionPromise;
}

/** Takes the session from a signup/login/guest answer (`{user, csrf}`), or forgets it (`null`). */
export function setSession(answer) {
  sessionPromise = Promise.resolve(answer ?? { user: null, csrf: null });
}

async function request(method, path, { json, bytes, csrf, raw = false } = {}) {
  const headers = { Accept: raw ? "*/*" : "application/json" };
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (bytes !== undefined) {
    headers["Content-Type"] = "application/x-go-sgf";
    body = bytes;
  }
  if (csrf) headers["X-CSRF-Token"] = csrf;
  let answer;
  try {
    answer = await fetch(path, { method, headers, body, credentials: "same-origin" });
  } catch {
    throw new ApiError(0, null, "network");
  }
  // A file's bytes as they are (a refusal is JSON all the same).
  if (raw && answer.ok) return answer.arrayBuffer();
  const text = await answer.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!answer.ok) {
    const e = new ApiError(answer.status, data?.error ?? null, data?.reason ?? `http_${answer.status}`);
    // A superko refusal names the earlier position it would repeat: the move after which it stood, and its rows.
    if (typeof data?.repeats === "number") Object.assign(e, { repeats: data.repeats, board: data.board });
    throw e;
  }
  return data ?? {};
}

export function get(path) {
  return request("GET", path);
}

/** GETs a file (an SGF record): its bytes, as an ArrayBuffer. */
export function getBytes(path) {
  return request("GET", path, { raw: true });
}

/**
 * POSTs `json` (or raw `bytes`) with the session's CSRF token. When the token is refused (the session changed in
 * another tab, say) the session is asked again and the request sent once more.
 */
export async function post(path, { json, bytes } = {}) {
  let session = await getSession().catch(() => ({ csrf: null }));
  try {
    return await request("POST", path, { json, bytes, csrf: session.csrf });
  } catch (e) {
    if (!(e instanceof ApiError) || e.reason !== "csrf") throw e;
    session = await getSession(true);
    return request("POST", path, { json, bytes, csrf: session.csrf });
  }
}

/** POST without a session yet: signup, login, guest. The answer's session becomes the page's. */
export async function signIn(path, json) {
  const answer = await request("POST", path, { json });
  setSession(answer);
  return answer;
}

/** The WebSocket URL of an API path on this server. */
export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}
