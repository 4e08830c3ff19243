// Sign up, log in or play as a guest; then back to where the user came from (?next=, a path on this site).

import { signIn } from "./api.js";
import { onLanguageChange, t } from "./i18n.js";
import { boot, playerName, showError } from "./page.js";
import { safeNext } from "./paths.js";

// The forms are wired before anything is awaited, so that a quick submit never falls through to a plain form
// submission.
const next = safeNext(location.search);

for (const [id, path] of [
  ["signup", "/api/signup"],
  ["login", "/api/login"],
  ["guest", "/api/guest"],
]) {
  const form = document.getElementById(id);
  const errorBox = form.querySelector(".form-error");
  const button = form.querySelector("button[type=submit]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(errorBox, null);
    const body = { name: form.elements.name.value.trim() };
    if (form.elements.password) body.password = form.elements.password.value;
    button.disabled = true;
    try {
      await signIn(path, body);
      location.href = next;
    } catch (e) {
      showError(errorBox, e);
      button.disabled = false;
    }
  });
}

const session = await boot();

function renderSignedIn() {
  const box = document.getElementById("signed-in");
  box.hidden = !session.user;
  if (session.user) box.textContent = t("login.signed-in", { name: playerName(session.user) });
}
renderSignedIn();
onLanguageChange(renderSignedIn);

document.body.dataset.ready = "true";
