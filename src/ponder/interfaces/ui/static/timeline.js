// The run's timeline box follows the newest step, as a log does: unless the person scrolled
// up to read, then it stays where they are and "Jump to latest" brings them back (and the
// box follows again).

const SLACK = 24; // px from the bottom that still count as "at the newest step"

export class Timeline {
  constructor(list, button) {
    this.list = list;
    this.button = button;
    this.following = true;
    list.addEventListener("scroll", () => {
      this.following = this.atBottom();
      if (this.following) this.button.hidden = true;
    }, { passive: true });
    button.addEventListener("click", () => this.latest());
  }

  atBottom() {
    const list = this.list;
    return list.scrollHeight - list.scrollTop - list.clientHeight <= SLACK;
  }

  append(item) {
    this.list.append(item);
    if (this.following) this.list.scrollTop = this.list.scrollHeight;
    else this.button.hidden = false; // newer steps wait below
  }

  latest() {
    this.following = true;
    this.button.hidden = true;
    this.list.scrollTop = this.list.scrollHeight;
  }
}
