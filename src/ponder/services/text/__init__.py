"""Text helpers shared by every stage: words and stems, citation markers."""
