// The pages' own URLs. Pure functions.

/** `?next=` when it is a path of this site (never another origin: `//host` or `/\host` are refused), else `/`. */
export function safeNext(search) {
  const next = new URLSearchParams(search).get("next");
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}

/** The id in `/game/7` or `/player/7` (`kind` = "game" or "player"), as a string of digits, or null. */
export function idFromPath(kind, pathname) {
  const m = new RegExp(`^/${kind}/(\\d+)/?$`).exec(pathname);
  return m ? m[1] : null;
}

/** The link that lets someone join an invite-only table. */
export function inviteUrl(origin, id, token) {
  return `${origin}/game/${id}?invite=${encodeURIComponent(token)}`;
}
