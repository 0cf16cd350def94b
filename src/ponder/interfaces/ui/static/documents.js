// Documents: index a folder with a progress bar; upload files to your own.

async function indexFolder(path) {
  const said = document.getElementById("index-status");
  const body = new URLSearchParams({ path });
  const response = await fetch("/documents", { method: "POST", body, headers: { accept: "application/json" } });
  const answer = await response.json();
  if (answer.error) { said.textContent = answer.error; said.className = "error"; return; }
  await followJob(answer.job, path);
}

// Poll an indexing job until it ends; the page reloads to show the new figures.
async function followJob(id, label) {
  const bar = document.getElementById("index-progress");
  const said = document.getElementById("index-status");
  bar.hidden = false;
  said.className = "";
  said.textContent = `Indexing ${label}…`;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const job = await (await fetch(`/documents/jobs/${id}`)).json();
    bar.max = Math.max(job.total, 1);
    bar.value = job.done;
    said.textContent = `Indexing ${job.path}: ${job.done} of ${job.total || "?"} files`;
    if (job.finished) {
      said.textContent = job.error
        ? job.error
        : `Indexed ${job.path}: ${job.result.files} files, ${job.result.passages} passages` +
          (job.result.skipped ? `; ${job.result.skipped} skipped, each with its reason below.` : ".");
      if (!job.error) setTimeout(() => window.location.reload(), 1200);
      return;
    }
  }
}

// The chosen files in one request, as the form without script sends them: one refused
// refuses them all (nothing is kept), saying which and why.
async function uploadFiles(form) {
  const said = document.getElementById("upload-status");
  const chosen = Array.from(form.elements.file.files);
  said.className = "";
  said.removeAttribute("role");
  said.textContent = `Uploading ${chosen.length} file(s)…`;
  let answer;
  try {
    const response = await fetch(form.action, {
      method: "POST", body: new FormData(form), headers: { accept: "application/json" },
    });
    answer = await response.json();
  } catch (error) {
    answer = { error: "The upload did not arrive: the server did not answer." };
  }
  if (answer.error) {
    said.className = "error";
    said.setAttribute("role", "alert");
    said.textContent = answer.error;
    return;
  }
  said.textContent = `Uploaded ${answer.files.join(", ")}.` + (answer.note ? ` ${answer.note}` : "");
  if (answer.job) await followJob(answer.job, "your uploads");
  else setTimeout(() => window.location.reload(), 1200);
}

export function wireDocuments() {
  for (const button of document.querySelectorAll("button.index")) {
    button.addEventListener("click", () => indexFolder(button.dataset.path));
  }
  const form = document.getElementById("add-folder");
  if (form) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      indexFolder(form.elements.path.value);
    });
  }
  const upload = document.getElementById("upload");
  if (upload) {
    upload.addEventListener("submit", (event) => {
      event.preventDefault();
      uploadFiles(upload);
    });
  }
}
