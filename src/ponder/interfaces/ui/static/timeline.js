// The run's timeline box follows the newest step, as a log does: unless the person scrolled
// up to read, then it stays where they are and "Jump to latest" brings them back (and the
// box follows again).

const SLACK = 24; // px from the bottom that still count as "at the newest step"

export class Timeline {
  constructor(list, button) {
    this.list = list;
    this.button = button;
    this.following = true;
    this.placed = 0; // where this script last scrolled the box to
    list.addEventListener("scroll", () => {
      // The scroll this script made is reported a frame later, when newer steps may have
      // made the box taller already: only the person's own scroll changes the mode.
      if (Math.abs(list.scrollTop - this.placed) < 2) return;
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
    if (!this.following) {
      this.button.hidden = false; // newer steps wait below
      return;
    }
    // Once per frame, not per step: reading the box's height lays the page out.
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (this.following) this.bottom();
    });
  }

  bottom() {
    this.list.scrollTop = this.list.scrollHeight;
    this.placed = this.list.scrollTop;
  }

  latest() {
    this.following = true;
    this.button.hidden = true;
    this.bottom();
  }
}
