"""The training script's shared pieces that the Rust model must mirror
(standard library only, so CI runs it without torch)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


class CommonTest(unittest.TestCase):
    def test_bigram_buckets_are_the_rust_models(self):
        # crates/models/src/checkworthy.rs, bigram_buckets_are_the_training_scripts
        self.assertEqual(common.bigram_bucket(101, 2023), 60822)
        self.assertEqual(common.bigram_bucket(0, 0), 14789)
        self.assertEqual(common.bigram_bucket(30521, 7), 24326)

    def test_parts_are_stable_and_all_used(self):
        parts = [common.part_of("claimbuster/%d" % i) for i in range(2000)]
        self.assertEqual(parts, [common.part_of("claimbuster/%d" % i) for i in range(2000)])
        share = {p: parts.count(p) / len(parts) for p in ("train", "calib", "check")}
        self.assertTrue(0.15 < share["check"] < 0.25, share)
        self.assertTrue(0.05 < share["calib"] < 0.12, share)

    def test_digits_are_ascii_digits_only(self):
        self.assertTrue(common.has_digit("up 4%"))
        self.assertFalse(common.has_digit("x\u00b2 and \u0663"))

    def test_kinds_are_the_rust_models(self):
        here = os.path.dirname(os.path.abspath(__file__))
        rust = open(os.path.join(here, "..", "..", "crates", "models", "src", "checkworthy.rs"), encoding="utf-8").read()
        listed = rust.split("RULE_KINDS: [&str; 11] =", 1)[1].split("];", 1)[0]
        self.assertEqual([k.strip().strip('"') for k in listed.strip().strip("[").split(",") if k.strip()], common.KINDS)


if __name__ == "__main__":
    unittest.main()
