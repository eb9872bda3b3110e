// Baseline answering: the seconds from showing the item to answering go with the answer.
const shownAt = performance.now();
document.getElementById("baseline-form").addEventListener("submit", () => {
  document.getElementById("seconds-spent").value = ((performance.now() - shownAt) / 1000).toFixed(1);
});
