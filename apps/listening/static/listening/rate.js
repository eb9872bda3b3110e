// The rating page. The ACR buttons unlock only when the clip has played to its end and the server has
// recorded that (POST .../playback/; the server checks the clip had time to play, and checks the rating
// the same way, so a forced submit is refused too). On a first listen
// seeking forward is undone; once played, replay may seek anywhere. Keys 1-5 rate wherever focus is
// (after a click on Play the audio element has it), except inside text fields.
(function () {
  const root = document.getElementById("listening-rate");
  if (!root) return;
  const audio = document.getElementById("clip-audio");
  const buttons = Array.from(root.querySelectorAll("button[data-score]"));
  const status = document.getElementById("playback-status");
  const form = document.getElementById("rating-form");
  const token = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  let played = root.dataset.played === "1";
  let furthest = 0; // how far the clip has really played on this first listen, in seconds
  let submitted = false;

  function enable() {
    buttons.forEach((b) => { b.disabled = false; });
    status.textContent = gettext("Choose a score: click a button or press 1-5.");
  }

  audio.addEventListener("timeupdate", () => {
    // Normal playback advances a little at a time; a jump is a seek and is not counted as listened.
    if (!audio.seeking && audio.currentTime - furthest < 1.0) furthest = Math.max(furthest, audio.currentTime);
  });
  audio.addEventListener("seeking", () => {
    if (played || audio.currentTime <= furthest + 0.25) return;
    audio.currentTime = furthest;
    status.textContent = gettext("Seeking forward is off on the first listen: the clip goes on from where you were.");
  });

  audio.addEventListener("ended", async () => {
    const duration = audio.duration || parseFloat(root.dataset.duration) || 0;
    if (!played && furthest < duration - 0.5) return; // reached the end by seeking, not by listening
    status.textContent = gettext("Saving that you listened…");
    try {
      const response = await fetch(root.dataset.playbackUrl, {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRFToken": token, "Accept": "application/json" },
      });
      if (response.ok) { played = true; enable(); return; }
      const body = await response.json().catch(() => ({}));
      status.textContent = body.detail || gettext("The server did not accept the playback. Play the clip again.");
    } catch (err) {
      status.textContent = gettext("Network error: play the clip again to retry.");
    }
  });

  form.addEventListener("submit", () => {
    // One rating per clip: stop a double press from sending twice (the server would answer 200 anyway).
    submitted = true;
    setTimeout(() => buttons.forEach((b) => { b.disabled = true; }), 0);
  });

  // Chromium's player controls keep every key pressed while they have focus (the page never sees it), and
  // a click on Play gives them focus: hand focus back to the page as soon as playback starts or the player
  // is clicked. Space still plays and pauses (below).
  root.tabIndex = -1;
  const giveFocusBack = () => { if (document.activeElement === audio) root.focus({ preventScroll: true }); };
  audio.addEventListener("play", giveFocusBack);
  audio.addEventListener("click", () => setTimeout(giveFocusBack, 0));
  audio.addEventListener("mouseup", () => setTimeout(giveFocusBack, 0));

  // Capture phase on window, so no other handler on the page takes the key first.
  window.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || submitted) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    if (event.key === " " && target === root) {
      event.preventDefault();
      if (audio.paused) audio.play(); else audio.pause();
      return;
    }
    if (!/^[1-5]$/.test(event.key)) return;
    event.preventDefault();
    event.stopPropagation();
    const button = root.querySelector(`button[data-score="${event.key}"]`);
    if (button && !button.disabled) button.click();
    else status.textContent = gettext("Play the clip to its end first; then press 1-5.");
  }, true);
})();
