// The game page's sounds, made with the Web Audio API (no sound files): a stone set down (a short burst of
// band-passed noise over a low knock), a pass (two soft falling tones), a clock's tick (a short beep, higher in the
// last three seconds). Browsers let a page sound only after a user's gesture: the context is made, or resumed, on
// the page's clicks and keys until it has run once. A running context costs processor time even when silent: it
// is suspended after a moment without sound, and resumed for the next one (a page the user has interacted with
// may). Which sound to play, and when, is sounds.js's.

const GESTURES = ["pointerdown", "keydown", "click", "touchend"];
/** A context without sound for this long is suspended. */
const IDLE_MS = 2000;
let context = null;
let unlocked = false; // the context has run once: the browser lets it resume from now on
let idle = null; // the timer that suspends it
let noise = null; // the stone's noise, made once

function audioContext() {
  if (context) return context;
  const Context = globalThis.AudioContext ?? globalThis.webkitAudioContext;
  if (!Context) return null;
  try {
    context = new Context();
  } catch {
    context = null;
  }
  return context;
}

/** Makes the audio context on the first gesture on `target`, and resumes it on each gesture until it has run
 * once (a browser may keep it suspended until then). */
export function unlockOnGesture(target = document) {
  const unlock = () => {
    const ctx = audioContext();
    if (!ctx) return;
    if (unlocked) {
      for (const type of GESTURES) target.removeEventListener(type, unlock, true);
      return;
    }
    wake();
  };
  for (const type of GESTURES) target.addEventListener(type, unlock, true);
}

/** Resumes the context (when it is suspended) and suspends it again after IDLE_MS without sound. */
function wake() {
  if (context.state === "suspended") {
    context
      .resume?.()
      .then(() => {
        unlocked = true;
      })
      .catch(() => {});
  } else if (context.state === "running") unlocked = true;
  clearTimeout(idle);
  idle = setTimeout(() => {
    idle = null;
    if (context.state === "running") context.suspend?.().catch(() => {});
  }, IDLE_MS);
}

/** Whether sounds can be played now: the context was let run (it may be suspended while idle). */
export function audioReady() {
  return Boolean(context) && unlocked && context.state !== "closed";
}

/** A gain node whose level rises to `peak` in `attack` s from `at` and fades out over `decay` s. */
function envelope(at, peak, attack, decay) {
  const gain = context.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(peak, at + attack);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + attack + decay);
  gain.connect(context.destination);
  return gain;
}

function tone(at, frequency, length, peak, type = "sine") {
  const osc = context.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(frequency, at);
  osc.connect(envelope(at, peak, 0.005, length));
  osc.start(at);
  osc.stop(at + length + 0.05);
}

function stone(at) {
  if (!noise) {
    const length = Math.floor(context.sampleRate * 0.05);
    noise = context.createBuffer(1, length, context.sampleRate);
    const data = noise.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 3;
  }
  const click = context.createBufferSource();
  click.buffer = noise;
  const filter = context.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 2500;
  filter.Q.value = 0.9;
  click.connect(filter).connect(envelope(at, 0.9, 0.001, 0.05));
  click.start(at);
  // The board's knock under the click: a short sine falling in pitch.
  const knock = context.createOscillator();
  knock.frequency.setValueAtTime(280, at);
  knock.frequency.exponentialRampToValueAtTime(110, at + 0.06);
  knock.connect(envelope(at, 0.45, 0.002, 0.08));
  knock.start(at);
  knock.stop(at + 0.12);
}

/** Plays `kind` (`move`, `pass`, `tick`; `urgent`: the last seconds' tick); false when it cannot be heard yet. */
export function playSound(kind, { urgent = false } = {}) {
  if (!audioReady()) return false;
  wake();
  // A suspended context's time stands still: the sound starts as soon as it runs again.
  const at = context.currentTime + 0.01;
  try {
    if (kind === "move") stone(at);
    else if (kind === "pass") {
      tone(at, 660, 0.12, 0.18, "triangle");
      tone(at + 0.15, 440, 0.18, 0.18, "triangle");
    } else if (kind === "tick") tone(at, urgent ? 1320 : 880, 0.06, 0.15);
    else return false;
  } catch {
    return false; // an old implementation without some node: silence rather than an error
  }
  return true;
}
