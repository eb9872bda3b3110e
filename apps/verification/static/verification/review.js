// Review page keys: A approves, R rejects (with at least one reason), 1-6 toggle the reasons.
// Time spent (seconds since the item was shown) goes with the decision.
(() => {
  const form = document.getElementById("review-form");
  if (!form) return;
  const shownAt = performance.now();
  const decision = document.getElementById("decision");
  const hint = document.getElementById("review-hint");
  const comment = document.getElementById("comment");
  const reasons = () => [...form.querySelectorAll("input[name=reasons]")];

  function submit(value) {
    const checked = reasons().filter((r) => r.checked);
    if (value === "reject" && checked.length === 0) {
      hint.textContent = "Choose at least one reason (keys 1-6), then press R again.";
      reasons()[0].focus();
      return false;
    }
    if (value === "reject" && checked.some((r) => r.value === "other") && !comment.value.trim()) {
      hint.textContent = "Say in the comment what is wrong (reason: other).";
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

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "textarea" || (tag === "input" && event.target.type === "text")) return;
    const key = event.key.toLowerCase();
    if (key === "a") { event.preventDefault(); submit("approve"); }
    else if (key === "r") { event.preventDefault(); submit("reject"); }
    else if (/^[1-6]$/.test(key)) {
      const box = form.querySelector(`input[data-key="${key}"]`);
      if (box) { event.preventDefault(); box.checked = !box.checked; hint.textContent = ""; }
    }
  });
})();
