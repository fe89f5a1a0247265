// The format lab's progress bar (see job-progress.js): "N of M tournaments", then the error
// if the run failed; the page reloads to render the comparison.
window.followJob("lab-progress", "count", function (job, box, part) {
  "use strict";

  part("count").textContent = box.dataset.countText
    .replace("%(done)s", window.formatCount(job.done))
    .replace("%(total)s", window.formatCount(job.total));
  var error = part("error");
  if (job.error) {
    error.textContent = job.error;
    error.hidden = false;
  }
});
