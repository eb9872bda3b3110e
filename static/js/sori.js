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
