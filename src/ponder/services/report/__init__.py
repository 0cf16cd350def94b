"""The report stage: composing the report and checking each citation against its source."""
