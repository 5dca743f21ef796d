"""FLenQA: True/False reasoning over two key paragraphs padded to controlled lengths."""
