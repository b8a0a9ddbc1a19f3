// The editor's dialogs (deck settings, share, export): opened by the header's buttons
// (`data-opens="<dialog id>"`), closed by their Close button or Escape. A dialog gets an
// `open` event each time it opens, for what it shows to be read again.

export function installDialogs() {
  for (const button of document.querySelectorAll("[data-opens]")) {
    const dialog = document.getElementById(button.dataset.opens);
    button.setAttribute("aria-haspopup", "dialog");
    button.addEventListener("click", () => {
      if (dialog.open) return;
      dialog.showModal();
      dialog.dispatchEvent(new Event("open"));
    });
  }
}
