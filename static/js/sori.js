// Sori: small shared behaviours. htmx sends the CSRF token from <body hx-headers>; nothing else is global.
document.addEventListener("htmx:responseError", (event) => {
  const status = event.detail.xhr.status;
  const box = document.querySelector(".messages") || document.getElementById("main");
  const note = document.createElement("p");
  note.className = "message message--error";
  note.setAttribute("role", "alert");
  note.textContent = `The server answered ${status}. ${event.detail.xhr.responseText.slice(0, 200)}`;
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
