// Translations: dictionaries in /static/i18n/{lang}.json (flat keys, the same in every language), the choice
// remembered in localStorage and first taken from the browser. Elements carrying data-i18n get their text from the
// dictionary; data-i18n-placeholder, data-i18n-title and data-i18n-aria-label set those attributes.

export const LANGUAGES = { en: "English", "zh-Hans": "简体中文", ja: "日本語", ko: "한국어" };
export const DEFAULT_LANGUAGE = "en";
const STORE_KEY = "tesuji.lang";

/** The language to use: a remembered choice if it is one we have, else the first browser language we have. */
export function pickLanguage(stored, browserLanguages) {
  if (stored && Object.hasOwn(LANGUAGES, stored)) return stored;
  for (const tag of browserLanguages ?? []) {
    const lower = String(tag).toLowerCase();
    // zh, zh-CN, zh-SG and zh-Hans all read Simplified Chinese; zh-TW and zh-HK too, better than English.
    if (lower === "zh" || lower.startsWith("zh-")) return "zh-Hans";
    if (lower === "ja" || lower.startsWith("ja-")) return "ja";
    if (lower === "ko" || lower.startsWith("ko-")) return "ko";
    if (lower === "en" || lower.startsWith("en-")) return "en";
  }
  return DEFAULT_LANGUAGE;
}

/** `{name}` placeholders filled from params; unknown placeholders stay as they are. */
export function interpolate(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

let dictionary = {};
let language = DEFAULT_LANGUAGE;
const listeners = [];

/** The translated text of `key` (the key itself when missing, so that a gap is visible, never blank). */
export function t(key, params) {
  const text = Object.hasOwn(dictionary, key) ? dictionary[key] : key;
  return interpolate(text, params);
}

/** Whether the current dictionary has `key` (for optional texts such as reason headlines). */
export function has(key) {
  return Object.hasOwn(dictionary, key);
}

export function currentLanguage() {
  return language;
}

/** Called after every language change, so that pages re-render what they built in code. */
export function onLanguageChange(fn) {
  listeners.push(fn);
}

async function fetchDictionary(lang) {
  const answer = await fetch(`/static/i18n/${lang}.json`, { credentials: "same-origin" });
  if (!answer.ok) throw new Error(`dictionary ${lang}: HTTP ${answer.status}`);
  return answer.json();
}

/** Loads `lang` (falling back to English when it cannot be fetched) and translates the document. */
export async function setLanguage(lang, { remember = true } = {}) {
  let chosen = Object.hasOwn(LANGUAGES, lang) ? lang : DEFAULT_LANGUAGE;
  try {
    dictionary = await fetchDictionary(chosen);
  } catch (e) {
    console.warn(e);
    if (chosen === DEFAULT_LANGUAGE) return; // the English text already in the HTML stays
    chosen = DEFAULT_LANGUAGE;
    dictionary = await fetchDictionary(chosen).catch(() => ({}));
  }
  language = chosen;
  if (remember) {
    try {
      localStorage.setItem(STORE_KEY, chosen);
    } catch {
      // Private modes may refuse storage; the choice then lasts for this page only.
    }
  }
  document.documentElement.lang = chosen;
  translateTree(document);
  for (const fn of listeners) fn(chosen);
}

/** Applies the dictionary to every data-i18n* element under `root`. */
export function translateTree(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const [attr, data] of [
    ["placeholder", "i18nPlaceholder"],
    ["title", "i18nTitle"],
    ["aria-label", "i18nAriaLabel"],
  ]) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) el.setAttribute(attr, t(el.dataset[data]));
  }
}

/** Chooses the language, translates the page and wires the #lang selector. */
export async function initI18n() {
  let stored = null;
  try {
    stored = localStorage.getItem(STORE_KEY);
  } catch {
    stored = null;
  }
  await setLanguage(pickLanguage(stored, navigator.languages ?? [navigator.language]), { remember: false });
  const select = document.getElementById("lang");
  if (select) {
    select.value = language;
    select.addEventListener("change", () => setLanguage(select.value));
  }
}
