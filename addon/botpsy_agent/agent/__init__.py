"""The conversation loop: request -> fast path or model -> typed calls -> authorize -> execute."""
