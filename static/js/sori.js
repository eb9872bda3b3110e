// Sori: small shared behaviours. htmx sends the CSRF token from <body hx-headers>; nothing else is global.
document.addEventListener("htmx:responseError", (event) => {
  const status = event.detail.xhr.status;
  const box = document.querySelector(".messages") || document.getElementById("main");
  const note = document.createElement("p");
  note.className = "message message--error";
  note.setAttribute("role", "alert");
  note.textContent = `${interpolate(gettext("The server answered %s."), [status])} ${event.detail.xhr.responseText.slice(0, 200)}`;
  box.prepend(note);
});

// A message that names the field or button it concerns (data-near: an element id or a field name) is
// shown beside it, and scrolled to, instead of at the top of a long page.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".messages [data-near]").forEach((message) => {
    const near = message.dataset.near;
    const target = document.getElementById(near) || document.querySelector(`[name="${CSS.escape(near)}"]`);
    if (!target) return;
    const note = document.createElement("p");
    note.className = `field-error ${message.className}`;
    note.setAttribute("role", "alert");
    note.id = `error-near-${near}`;
    note.textContent = message.textContent;
    target.insertAdjacentElement("afterend", note);
    target.setAttribute("aria-describedby", note.id);
    message.remove();
    note.scrollIntoView({ block: "center" });
  });
  document.querySelectorAll(".messages:empty").forEach((list) => list.remove());
});

// A <select data-submit-on-change> submits its form when changed (a filter), without an inline handler:
// the Content-Security-Policy runs no inline script.
document.addEventListener("change", (event) => {
  if (event.target.matches("select[data-submit-on-change]")) event.target.form.requestSubmit();
});

// The main menu's workflow groups are <details> menus, which work without this; with it, one menu is open at a
// time, and Escape or a click elsewhere closes it (Escape gives the focus back to the menu's name).
const openMenus = () => document.querySelectorAll(".mainnav details[open]");
document.addEventListener("toggle", (event) => {
  if (!event.target.matches?.(".mainnav details") || !event.target.open) return;
  openMenus().forEach((menu) => { if (menu !== event.target) menu.open = false; });
}, true);
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  openMenus().forEach((menu) => { menu.open = false; menu.querySelector("summary").focus(); });
});
document.addEventListener("click", (event) => {
  openMenus().forEach((menu) => { if (!menu.contains(event.target)) menu.open = false; });
});

// ---- Busy states (issue 34): an action that starts work shows that it is working. ----
// A submitted post form's button (or an htmx button) says gettext("Working…") with a spinner (CSS on aria-busy) and
// every submit button of the form is disabled until the answer comes, so nobody waits on a page that looks
// idle (the first Normalize took 6.7 s) or sends twice. This happens a tick after the submit event: a button
// disabled (or relabelled) during it would change what the form sends. Forms
// read with GET (filters) are not work; a form opts out with data-busy="off".
function soriSetBusy(button, busy) {
  if (!button) return;
  const text = button.tagName === "INPUT" ? "value" : "textContent";  // an <input type=submit> shows its value
  if (busy) {
    if (button.getAttribute("aria-busy") === "true") return;
    button.dataset.idleLabel = button[text];
    button.setAttribute("aria-busy", "true");
    button[text] = gettext("Working…");
  } else if (button.getAttribute("aria-busy") === "true") {
    button.removeAttribute("aria-busy");
    button[text] = button.dataset.idleLabel || button[text];
    button.disabled = false;
  }
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  // An htmx form (htmx prevents the browser's submit) gets its busy state from the htmx handlers below.
  const method = (form.getAttribute("method") || "get").toLowerCase();  // not form.method: a field may be named so
  if (event.defaultPrevented || method !== "post" || form.dataset.busy === "off" || form.hasAttribute("hx-post")) return;
  const buttons = [...form.querySelectorAll("button[type=submit], button:not([type]), input[type=submit]")];
  const pressed = event.submitter || buttons[0];
  setTimeout(() => {  // after the form's data is taken: an <input type=submit> sends its value, which this changes
    soriSetBusy(pressed, true);
    buttons.forEach((button) => { button.disabled = true; });
  }, 0);
});

// Back to a page kept in the browser's memory: its buttons are usable again.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) document.querySelectorAll('[aria-busy="true"]').forEach((button) => soriSetBusy(button, false));
});

// An htmx action started by a person (a button, or a form's submit), not a poll or an autosave.
function soriHtmxButton(detail) {
  const trigger = detail.requestConfig && detail.requestConfig.triggeringEvent;
  if (detail.elt.matches("button, input[type=submit]")) return detail.elt;
  if (trigger && trigger.type === "submit") return trigger.submitter || detail.elt.querySelector("button, input[type=submit]");
  return null;
}

document.addEventListener("htmx:beforeRequest", (event) => {
  const button = soriHtmxButton(event.detail);
  if (!button) return;
  soriSetBusy(button, true);
  button.disabled = true;  // htmx has read the form already
});

document.addEventListener("htmx:afterRequest", (event) => {
  const button = soriHtmxButton(event.detail);
  if (button && button.isConnected) soriSetBusy(button, false);  // most answers replace the button anyway
});
