/* Safe buttons: a form with data-confirm="sentence" asks before it submits.

   The sentence says what will happen ("Publish the draw? Every group becomes public …").
   It is asked in the page's <dialog id="confirm-dialog"> (base.html) where the browser has
   one, else with window.confirm. Without JavaScript the form submits at once: the attribute
   does nothing, and the server checks every action anyway. */
(() => {
  "use strict";

  const dialog = document.getElementById("confirm-dialog");
  const modal = dialog && typeof dialog.showModal === "function";
  const confirmed = new WeakSet();

  function submit(form, submitter) {
    confirmed.add(form);
    if (typeof form.requestSubmit === "function") {
      // Runs the browser's validation and sends the clicked button's name and value.
      form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
    } else {
      if (submitter && submitter.name) {
        const carried = document.createElement("input");
        carried.type = "hidden";
        carried.name = submitter.name;
        carried.value = submitter.value;
        form.appendChild(carried);
      }
      form.submit();
    }
  }

  function ask(sentence, form, submitter) {
    if (!modal) {
      if (window.confirm(sentence)) {
        submit(form, submitter);
      }
      return;
    }
    const text = dialog.querySelector("[data-confirm-text]");
    const yes = dialog.querySelector("[data-confirm-yes]");
    const label = submitter && submitter.textContent.trim();
    text.textContent = sentence;
    yes.textContent = label || yes.dataset.defaultLabel;
    dialog.returnValue = "";
    dialog.addEventListener(
      "close",
      () => {
        if (dialog.returnValue === "yes") {
          submit(form, submitter);
        } else if (submitter && typeof submitter.focus === "function") {
          submitter.focus();
        }
      },
      { once: true },
    );
    dialog.showModal();
    yes.focus();
  }

  if (dialog) {
    if (!dialog.querySelector("[data-confirm-yes]").dataset.defaultLabel) {
      const yes = dialog.querySelector("[data-confirm-yes]");
      yes.dataset.defaultLabel = yes.textContent.trim();
    }
  }

  document.addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) {
        return;
      }
      if (confirmed.has(form)) {
        confirmed.delete(form);
        return;
      }
      event.preventDefault();
      event.stopImmediatePropagation();
      ask(form.dataset.confirm, form, event.submitter || null);
    },
    true,
  );
})();
