// Keyboard answering for a decision question: digits pick an option (0 = own answer), Ctrl/Cmd+Enter submits.
// Enter on an option or a confidence chooses it and never submits: the answer goes with its confidence and
// comment, by Ctrl/Cmd+Enter or the Submit button.
// Typing in a text box is never intercepted. Autosave itself is htmx (hx-trigger on the form).
(() => {
  const form = document.getElementById("answer-form");
  if (!form) return;
  document.addEventListener("keydown", (event) => {
    const typing = event.target.closest("textarea, input[type=text]");
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      form.requestSubmit(document.getElementById("submit-answer"));
      return;
    }
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Enter" && event.target.matches("input[type=radio]")) {
      event.preventDefault();
      event.target.checked = true;
      event.target.dispatchEvent(new Event("change", { bubbles: true }));
      return;
    }
    const radio = form.querySelector(`input[name=option][data-key="${event.key}"]`);
    if (radio) {
      radio.checked = true;
      radio.focus();
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      if (event.key === "0") document.getElementById("own-text")?.focus();
    }
  });
  // Writing an own answer selects "My own answer".
  document.getElementById("own-text")?.addEventListener("input", (event) => {
    if (event.target.value.trim()) form.querySelector('input[name=option][data-key="0"]').checked = true;
  });
})();
