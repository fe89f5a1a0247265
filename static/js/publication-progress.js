// The publication's progress (see job-progress.js, which moves the overall bar and reloads
// the page once all is done): one bar and figure per step — the groups' standings, the
// stage ranking, the verification files.
window.followJob("publication-progress", "summary", function (progress, box, part) {
  "use strict";

  function fill(text, step) {
    return text
      .replace("%(done)s", window.formatCount(step.done))
      .replace("%(total)s", window.formatCount(step.total));
  }

  ["standings", "ranking", "files"].forEach(function (name) {
    var step = progress[name];
    var bar = part(name + "-bar");
    bar.value = step.percent;
    bar.textContent = step.percent + "%";
    part(name + "-percent").textContent = step.percent + "%";
  });
  part("summary").textContent = progress.finished
    ? box.dataset.completeText
    : box.dataset.runningText;
  part("standings").textContent = fill(box.dataset.groupsText, progress.standings);
  part("ranking").textContent = fill(
    progress.ranking.finished ? box.dataset.rankingStoredText : box.dataset.rankingPendingText,
    progress.ranking
  );
  part("files").textContent = fill(box.dataset.filesText, progress.files);
});
