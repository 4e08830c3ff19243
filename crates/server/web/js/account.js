// One's own account (`/account`): change the password, see and end the sessions, delete the account. A guest
// and a signed-out reader are told what the page needs instead.

import { get, post, setSession } from "./api.js";
import { browserName, formatDate } from "./format.js";
import { currentLanguage, onLanguageChange, t } from "./i18n.js";
import { boot, el, loginHref, showError } from "./page.js";

const $ = (id) => document.getElementById(id);
const passwordForm = $("password");
const deleteForm = $("delete");
let sessions = [];

function renderSessions() {
  const rows = sessions.map((s) =>
    el(
      "tr",
      { "data-current": String(s.current) },
      el("td", { "data-label": t("account.browser") }, browserName(s.user_agent) ?? t("account.unknown")),
      el("td", { "data-label": t("account.address") }, s.address ?? t("account.unknown")),
      el("td", { "data-label": t("account.last-used") }, formatDate(s.last_used, currentLanguage())),
      el(
        "td",
        {},
        s.current
          ? el("span", { class: "muted" }, t("account.this-browser"))
          : el("button", { type: "button", class: "secondary small", "data-end": s.id }, t("account.end")),
      ),
    ),
  );
  $("session-list").tBodies[0].replaceChildren(...rows);
  $("end-others").hidden = !sessions.some((s) => !s.current);
}

async function loadSessions() {
  try {
    sessions = (await get("/api/account/sessions")).sessions ?? [];
    showError($("sessions-error"), null);
  } catch (e) {
    showError($("sessions-error"), e);
  }
  renderSessions();
}

/** Runs `action` with `button` disabled, showing its refusal in `box`. */
async function busy(button, box, action) {
  showError(box, null);
  button.disabled = true;
  try {
    await action();
  } catch (e) {
    showError(box, e);
  } finally {
    button.disabled = false;
  }
}

// Wired before anything is awaited, so that a quick submit never falls through to a plain form submission.
passwordForm.addEventListener("submit", (event) => {
  event.preventDefault();
  $("password-done").hidden = true;
  const { current, new: next } = passwordForm.elements;
  busy(passwordForm.querySelector("button[type=submit]"), passwordForm.querySelector(".form-error"), async () => {
    const answer = await post("/api/account/password", { json: { current: current.value, new: next.value } });
    passwordForm.reset();
    $("password-done").textContent = t("account.password-done", { n: answer.ended ?? 0 });
    $("password-done").hidden = false;
    await loadSessions();
  });
});

$("session-list").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-end]");
  if (!button) return;
  busy(button, $("sessions-error"), async () => {
    await post(`/api/account/sessions/${encodeURIComponent(button.dataset.end)}/end`);
    await loadSessions();
  });
});

$("end-others").addEventListener("click", () => {
  busy($("end-others"), $("sessions-error"), async () => {
    await post("/api/account/sessions/end-others");
    await loadSessions();
  });
});

deleteForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const box = deleteForm.querySelector(".form-error");
  if (!deleteForm.elements.sure.checked) {
    box.replaceChildren(t("account.delete-unsure"));
    box.hidden = false;
    return;
  }
  busy(deleteForm.querySelector("button[type=submit]"), box, async () => {
    await post("/api/account/delete", { json: { password: deleteForm.elements.password.value } });
    setSession(null);
    $("account-cards").hidden = true;
    $("account-deleted").hidden = false;
    // The header follows: no name, a way to log in.
    await boot();
  });
});

const session = await boot();
const user = session.user;
$("account-login").href = loginHref();
$("account-signed-out").hidden = Boolean(user);
$("account-guest").hidden = !user?.guest;
$("account-cards").hidden = !user || Boolean(user.guest);
if (user && !user.guest) {
  onLanguageChange(renderSessions);
  await loadSessions();
}
