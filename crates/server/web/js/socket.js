// A WebSocket that comes back: reconnects after any close with exponential backoff and jitter, and tells the
// page about each (re)connection so that it can resync. A page the browser hides by navigation (and may keep in
// its back-forward cache) closes its socket, so the server sees the player leave; shown again, it reconnects.

/** Milliseconds to wait before reconnection attempt `attempt` (0-based): 0.5 s doubling to 30 s, ±25% jitter. */
export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(30000, 500 * 2 ** Math.min(attempt, 16));
  return Math.round(base * (0.75 + 0.5 * random()));
}

export class LiveSocket {
  /**
   * `url`: ws(s) URL. Callbacks: `onMessage(object)`, `onOpen(isReconnect)`, `onClose()`, `onStatus(status)` with
   * status `connecting` | `open` | `closed`.
   */
  constructor(url, { onMessage, onOpen, onClose, onStatus } = {}) {
    this.url = url;
    this.onMessage = onMessage ?? (() => {});
    this.onOpen = onOpen ?? (() => {});
    this.onClose = onClose ?? (() => {});
    this.onStatus = onStatus ?? (() => {});
    this.attempt = 0;
    this.opened = false;
    this.stopped = false;
    this.timer = null;
    this.ws = null;
    this.hidden = false;
    // Come back at once when the network does, rather than at the end of a long backoff.
    window.addEventListener("online", () => this.reconnectNow());
    // `pagehide` fires on every navigation away, whether or not the page is kept for the back button; a kept page
    // would otherwise hold its socket open and its player would never show as away.
    window.addEventListener("pagehide", () => this.suspend());
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.resume();
    });
    this.connect();
  }

  get isOpen() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  connect() {
    if (this.stopped || this.hidden) return;
    this.onStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      const again = this.opened;
      this.opened = true;
      this.attempt = 0;
      this.onStatus("open");
      this.onOpen(again);
    });
    ws.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return; // not ours to read
      }
      this.onMessage(data);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.onStatus("closed");
      this.onClose();
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    if (this.stopped || this.hidden || this.timer) return;
    const delay = backoffDelay(this.attempt++);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  reconnectNow() {
    if (this.stopped || this.hidden || this.ws) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.connect();
  }

  /** Sends an object as JSON; false when the socket is not open (the caller then falls back to HTTP). */
  send(object) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(object));
    return true;
  }

  /** The page is hidden: close the socket (no reconnection) until `resume`. */
  suspend() {
    this.hidden = true;
    clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    this.ws = null; // its close event is then not ours: no reconnection is scheduled
    if (ws) {
      ws.close(1000, "page hidden");
      this.onStatus("closed");
      this.onClose();
    }
  }

  /** The page is shown again from the back-forward cache: reconnect at once (the page resyncs in `onOpen`). */
  resume() {
    if (!this.hidden) return;
    this.hidden = false;
    this.attempt = 0;
    this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }
}
