// KMMAU review keys, as on the verification review page: A approves, E opens the edit form, R rejects (with at
// least one reason), 1-5 toggle the reasons; not while typing in a field, and only once static/js/player.js has unlocked
// the decision (the clip played to its end). Enter in an edit field saves the edit, never approves.
// static/js/player.js plays the clip and keeps focus on the player.
(() => {
  const form = document.getElementById("gated-form");
  const edit = document.getElementById("edit-fields");
  if (!form || !edit) return;
  const decision = form.querySelector("fieldset.review-decision");
  const toggle = document.getElementById("edit-toggle");
  const hint = document.getElementById("review-hint");
  const reasons = () => [...form.querySelectorAll("input[name=reasons]")];
  // Words about keys go in a .keys-hint, which a touch screen does not show (static/css/sori.css).
  const keysHint = (text) => Object.assign(document.createElement("span"), { className: "keys-hint", textContent: ` ${text}` });
  let sent = false;

  function openEdit(open) {
    edit.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    if (open) { document.getElementById("edit-text").focus(); hint.replaceChildren(gettext("Edit the question, then save the edit."), keysHint(gettext("(Enter saves)"))); }
  }

  function send(value) {
    if (decision.disabled || sent) { hint.textContent = gettext("Play the clip to its end first."); return; }
    if (value === "reject" && !reasons().some((r) => r.checked)) {
      hint.replaceChildren(gettext("Choose at least one reason, then reject again."),
        keysHint(interpolate(gettext("(keys 1-%s, then R)"), [reasons().length])));
      reasons()[0].focus();
      return;
    }
    if (value !== "reject") reasons().forEach((r) => { r.checked = false; });
    sent = true; // one decision per question: a double press sends once (the server would keep one anyway)
    form.requestSubmit(document.querySelector(`button[name=decision][value=${value}]`));
  }

  form.querySelectorAll("button[name=decision]").forEach((button) => {
    button.addEventListener("click", (event) => { event.preventDefault(); send(button.value); });
  });
  toggle.addEventListener("click", () => openEdit(edit.hidden));
  document.getElementById("edit-cancel").addEventListener("click", () => { openEdit(false); toggle.focus(); });
  form.addEventListener("keydown", (event) => {
    // Implicit submission would use the first button (Approve): in the edit form Enter saves the edit instead,
    // and on a reason it toggles the reason, as Space does.
    if (event.key !== "Enter" || event.target.tagName !== "INPUT") return;
    event.preventDefault();
    if (edit.contains(event.target)) send("edit");
    else if (event.target.type === "checkbox") event.target.checked = !event.target.checked;
  });

  // Capture phase on window, so no other handler on the page takes the key first.
  window.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const tag = (target.tagName || "").toLowerCase();
    const typing = tag === "textarea" || target.isContentEditable
      || (tag === "input" && !["checkbox", "radio", "button", "submit"].includes(target.type));
    if (typing || !/^[aer1-9]$/i.test(event.key)) return;
    const key = event.key.toLowerCase();
    const box = form.querySelector(`input[data-key="${key}"]`);
    if (/^[1-9]$/.test(key) && !box) return;
    event.preventDefault();
    event.stopPropagation();
    if (decision.disabled) { hint.textContent = gettext("Play the clip to its end first."); return; }
    if (key === "a") send("approve");
    else if (key === "r") send("reject");
    else if (key === "e") openEdit(true);
    else { box.checked = !box.checked; hint.textContent = ""; }
  });
})();
