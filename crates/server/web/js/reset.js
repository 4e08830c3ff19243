// A password reset an operator issued (`tesuji reset-password`): the link's fragment holds the one-time token,
// which never reaches the server's logs; the new password is posted with it.

import { post } from "./api.js";
import { boot, showError } from "./page.js";

const token = location.hash.slice(1);
const form = document.getElementById("reset");
const errorBox = form.querySelector(".form-error");
const button = form.querySelector("button[type=submit]");
document.getElementById("reset-missing").hidden = token !== "";
form.hidden = token === "";

// Wired before anything is awaited, so that a quick submit never falls through to a plain form submission.
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(errorBox, null);
  button.disabled = true;
  try {
    await post("/api/account/reset", { json: { token, password: form.elements.password.value } });
    form.hidden = true;
    document.getElementById("reset-done").hidden = false;
    // The token is used up: out of the address bar and the history.
    history.replaceState(null, "", "/reset");
  } catch (e) {
    showError(errorBox, e);
    button.disabled = false;
  }
});

await boot();
