"""Your reference library: a BibTeX or CSL JSON export (Zotero, JabRef, Mendeley) whose
entries' attached files are searched with your documents and cited as the papers they are.

- :mod:`.entry`: what ponder keeps of an entry (authors, date, title, DOI or URL, files);
- :mod:`.bibtex` and :mod:`.csl`: reading each export into entries;
- :mod:`.attachments`: where an entry's files lie, read only inside the library's own
  folder or the operator's document roots;
- :mod:`.catalog`: the libraries of a run, loaded once per change, and the search that
  gives each attachment's hits its entry's metadata.
"""
