// A run is a thread of turns (its question, then each follow-up). The server draws the
// finished turns and says where the latest turn's events begin (data-after), so the live
// view replays that turn only, never an earlier turn's rounds.

// The seq after which this page's turn begins: the stream is asked for what follows.
export function turnStart(root) {
  return Number(root.dataset.after || 0);
}

// A turn this page was not drawn for (a follow-up asked in another tab): the server
// draws the thread again, each turn in its own section.
export function isNewTurn(root, event) {
  return event.status === "running" && Number(event.turn || 0) > Number(root.dataset.turn || 1);
}
