// The clip player of every task page (listening rating, verification review, KMMAU author/review/answer): one
// copy of the playback gate, the seek guard and the focus rules. An <audio data-player> opts in:
//   data-playback-url   the gate: when the clip has played to its end, POST here; the server checks the clip had
//                       time to play (and checks the answer the same way, so a forced submit is refused too)
//   data-played="1"     the person already played it (replay may seek anywhere, nothing to unlock)
//   data-duration       seconds, for when the browser does not know the clip's length
//   data-status         id of the status line (role=status, aria-live) this player writes to
//   data-unlocks        CSS selector of the controls the gate enables (disabled until then)
//   data-unlocked-text  what the status line says once they are enabled
//   data-autofocus      a new clip starts with focus on the player
// Focus stays where the next action is: on the player while the clip plays (Chromium's own controls swallow
// every key while a control inside them has focus, so focus goes back to the player element itself, where
// Space/Enter still play and the page's keys still work), then on the first unlocked control.
(() => {
  const csrf = () => document.querySelector("input[name=csrfmiddlewaretoken]")?.value || "";

  function setUp(audio) {
    const status = document.getElementById(audio.dataset.status || "");
    const gate = audio.dataset.playbackUrl || "";
    let played = !gate || audio.dataset.played === "1";
    let furthest = 0; // how far the clip has really played on this first listen, in seconds
    const say = (text) => { if (status && text) status.textContent = text; };

    function unlock(moveFocus) {
      const targets = audio.dataset.unlocks ? [...document.querySelectorAll(audio.dataset.unlocks)] : [];
      targets.forEach((element) => { element.disabled = false; });
      say(audio.dataset.unlockedText);
      const onPlayer = [audio, document.body, null].includes(document.activeElement);
      const first = targets.map((el) => (el.matches("button, input, select, textarea") ? el
        : el.querySelector("button:not([disabled]), input:not([type=hidden]):not([disabled]), select, textarea"))).find(Boolean);
      if (moveFocus && onPlayer && first) first.focus();
      audio.dispatchEvent(new CustomEvent("player:unlocked", { bubbles: true }));
    }

    // Normal playback advances a little at a time; a jump is a seek and is not counted as listened.
    audio.addEventListener("timeupdate", () => {
      if (!audio.seeking && audio.currentTime - furthest < 1.0) furthest = Math.max(furthest, audio.currentTime);
    });
    audio.addEventListener("seeking", () => {
      if (played || audio.currentTime <= furthest + 0.25) return;
      audio.currentTime = furthest;
      say(gettext("Seeking forward is off on the first listen: the clip goes on from where you were."));
    });

    audio.addEventListener("ended", async () => {
      if (!gate) return;
      const duration = audio.duration || parseFloat(audio.dataset.duration) || 0;
      if (!played && furthest < duration - 0.5) return; // reached the end by seeking, not by listening
      say(gettext("Saving that you listened…"));
      try {
        const response = await fetch(gate, {
          method: "POST", credentials: "same-origin",
          headers: { "X-CSRFToken": csrf(), "Accept": "application/json" },
        });
        if (response.ok) { played = true; unlock(true); return; }
        const body = await response.json().catch(() => ({}));
        say(body.detail || gettext("The server did not accept the playback. Play the clip again."));
      } catch (err) {
        say(gettext("Network error: play the clip again to retry."));
      }
    });

    const keepFocusOnPlayer = () => {
      if (document.activeElement === audio) audio.focus({ preventScroll: true });
    };
    audio.addEventListener("play", keepFocusOnPlayer);
    audio.addEventListener("click", () => setTimeout(keepFocusOnPlayer, 0));
    audio.addEventListener("mouseup", () => setTimeout(keepFocusOnPlayer, 0));

    if ("autofocus" in audio.dataset) audio.focus({ preventScroll: true });
  }

  document.querySelectorAll("audio[data-player]").forEach(setUp);
})();
