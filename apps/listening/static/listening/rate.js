// The ACR buttons unlock only when the clip has played to its end and the server has recorded that
// (POST .../playback/); keys 1-5 press the matching button once they are enabled. Replay stays allowed.
(function () {
  const root = document.getElementById("listening-rate");
  if (!root) return;
  const audio = document.getElementById("clip-audio");
  const buttons = Array.from(root.querySelectorAll("button[data-score]"));
  const status = document.getElementById("playback-status");
  const form = document.getElementById("rating-form");
  const token = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  let submitted = false;

  function enable() {
    buttons.forEach((b) => { b.disabled = false; });
    status.textContent = "Choose a score: click a button or press 1-5.";
  }

  audio.addEventListener("ended", async () => {
    status.textContent = "Saving that you listened…";
    try {
      const response = await fetch(root.dataset.playbackUrl, {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRFToken": token, "Accept": "application/json" },
      });
      if (response.ok) { enable(); return; }
      const body = await response.json().catch(() => ({}));
      status.textContent = body.detail || "The server did not accept the playback. Reload the page.";
    } catch (err) {
      status.textContent = "Network error: play the clip again to retry.";
    }
  });

  form.addEventListener("submit", () => {
    // One rating per clip: stop a double press from sending twice (the server would answer 200 anyway).
    submitted = true;
    setTimeout(() => buttons.forEach((b) => { b.disabled = true; }), 0);
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || submitted) return;
    if (!/^[1-5]$/.test(event.key)) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
    const button = root.querySelector(`button[data-score="${event.key}"]`);
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });
})();
