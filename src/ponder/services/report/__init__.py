"""The report stage: from what the research found to a report whose every [n] is checked.

One entry, ``stage.write_report``; the nodes that end a run (``finalize_summary``,
``final_report``) each call it once. Its steps, one module each:

- ``prompting``: what the model is asked (with ``excerpts`` of the sources beside the notes);
- ``drafting``: the text as the model streams it, guarded by ``grounding``, and repaired
  where it was cut;
- ``verify`` (with ``claims`` and ``support``): each sentence checked against the passages
  of the sources it cites;
- ``composer``: the checked report with its Sources section, or an ``extractive`` one (the
  cited findings and ``quotes`` of the sources) when the model's text rests on nothing read.
"""
