// Review page keys: A approves, R rejects (with at least one reason), 1-6 toggle the reasons; anywhere
// on the page except in text fields. Enter on a reason toggles it (it never submits: the form's first
// button is Approve). static/js/player.js keeps focus on the item's player.
// Time spent (seconds since the item was shown) goes with the decision.
(() => {
  const form = document.getElementById("review-form");
  if (!form) return;
  const shownAt = performance.now();
  const decision = document.getElementById("decision");
  const hint = document.getElementById("review-hint");
  const comment = document.getElementById("comment");
  const reasons = () => [...form.querySelectorAll("input[name=reasons]")];
  // Words about keys go in a .keys-hint, which a touch screen does not show (static/css/sori.css).
  const keysHint = (text) => Object.assign(document.createElement("span"), { className: "keys-hint", textContent: ` ${text}` });

  function submit(value) {
    const checked = reasons().filter((r) => r.checked);
    if (value === "reject" && checked.length === 0) {
      hint.replaceChildren(gettext("Choose at least one reason, then reject again."),
        keysHint(interpolate(gettext("(keys 1-%s, then R)"), [reasons().length])));
      reasons()[0].focus();
      return false;
    }
    if (value === "reject" && checked.some((r) => r.value === "other") && !comment.value.trim()) {
      hint.textContent = gettext("Say in the comment what is wrong (reason: other).");
      comment.focus();
      return false;
    }
    if (value === "approve") reasons().forEach((r) => { r.checked = false; });
    decision.value = value;
    document.getElementById("seconds-spent").value = ((performance.now() - shownAt) / 1000).toFixed(1);
    form.submit();
    return true;
  }

  form.querySelectorAll("button[data-decision]").forEach((button) => {
    button.addEventListener("click", (event) => {
      event.preventDefault();
      submit(button.dataset.decision);
    });
  });

  // Enter in a checkbox would submit the form with its first button (Approve) and clear the reasons: it
  // toggles the reason instead, as Space does.
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.target.type !== "checkbox") return;
    event.preventDefault();
    event.target.checked = !event.target.checked;
    hint.textContent = "";
  });

  // Capture phase on window, so no other handler on the page takes the key first.
  window.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const tag = (target.tagName || "").toLowerCase();
    const typing = tag === "textarea" || target.isContentEditable
      || (tag === "input" && !["checkbox", "radio", "button", "submit"].includes(target.type));
    if (typing) return;
    if (!/^[ar1-6]$/i.test(event.key)) return;
    event.stopPropagation();
    const key = event.key.toLowerCase();
    if (key === "a") { event.preventDefault(); submit("approve"); }
    else if (key === "r") { event.preventDefault(); submit("reject"); }
    else if (/^[1-6]$/.test(key)) {
      const box = form.querySelector(`input[data-key="${key}"]`);
      if (box) { event.preventDefault(); box.checked = !box.checked; hint.textContent = ""; }
    }
  }, true);
})();
