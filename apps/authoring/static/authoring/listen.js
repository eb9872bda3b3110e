// The form unlocks only when the clip has played to its end and the server has recorded that
// (POST .../playback/), as on the listening page. Replay stays allowed.
(function () {
  const root = document.getElementById("listen-gate");
  if (!root) return;
  const audio = document.getElementById("clip-audio");
  const status = document.getElementById("playback-status");
  const form = document.getElementById("gated-form");
  const fieldset = form.querySelector("fieldset");
  const token = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  audio.addEventListener("ended", async () => {
    status.textContent = gettext("Saving that you listened…");
    try {
      const response = await fetch(root.dataset.playbackUrl, {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRFToken": token, "Accept": "application/json" },
      });
      if (response.ok) {
        fieldset.disabled = false;
        status.textContent = gettext("Unlocked: you may answer now.");
        return;
      }
      const body = await response.json().catch(() => ({}));
      status.textContent = body.detail || gettext("The server did not accept the playback. Reload the page.");
    } catch (err) {
      status.textContent = gettext("Network error: play the clip again to retry.");
    }
  });
})();
