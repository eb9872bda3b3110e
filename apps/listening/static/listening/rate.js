// The rating page. static/js/player.js plays the clip, guards seeking on a first listen and unlocks the ACR
// buttons once the server has recorded that the clip played to its end. Keys 1-5 rate wherever focus is (the
// player keeps it while the clip plays), except inside text fields.
(function () {
  const root = document.getElementById("listening-rate");
  if (!root) return;
  const buttons = Array.from(root.querySelectorAll("button[data-score]"));
  const status = document.getElementById("playback-status");
  const form = document.getElementById("rating-form");
  let submitted = false;

  form.addEventListener("submit", () => {
    // One rating per clip: stop a double press from sending twice (the server would answer 200 anyway).
    submitted = true;
    setTimeout(() => buttons.forEach((b) => { b.disabled = true; }), 0);
  });

  // Capture phase on window, so no other handler on the page takes the key first.
  window.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || submitted) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    if (!/^[1-5]$/.test(event.key)) return;
    event.preventDefault();
    event.stopPropagation();
    const button = root.querySelector(`button[data-score="${event.key}"]`);
    if (button && !button.disabled) button.click();
    else status.textContent = gettext("Play the clip to its end first; then press 1-5.");
  }, true);
})();
