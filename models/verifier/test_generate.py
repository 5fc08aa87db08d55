"""Tests of the pair generators: `python3 -m unittest discover models/verifier` (CI runs it)."""

import random
import unittest

import generate as g


class NumberTests(unittest.TestCase):
    def test_finds_values_not_names(self):
        found = [t for _, _, t in g.numbers("COVID-19 killed 1,200 people in 2020, about 3.5% of B2B staff.")]
        self.assertEqual(found, ["1,200", "2020", "3.5"])

    def test_swap_changes_exactly_one_value(self):
        rng = random.Random(1)
        for _ in range(50):
            text = "The plant employed 450 people in 1998."
            out = g.swap_number(text, rng)
            self.assertIsNotNone(out)
            self.assertNotEqual(out, text)
            diff = [a for a, b in zip(g.numbers(text), g.numbers(out)) if a[2] != b[2]]
            self.assertEqual(len(diff), 1)

    def test_year_stays_a_year(self):
        rng = random.Random(2)
        for _ in range(50):
            out = g.swap_number("It opened in 1998.", rng)
            year = int(g.numbers(out)[0][2])
            self.assertTrue(1980 <= year <= 2010 and year != 1998)

    def test_no_number_no_edit(self):
        self.assertIsNone(g.swap_number("No values here.", random.Random(0)))

    def test_only_restricts_the_edit(self):
        out = g.swap_number("In 1998 it had 450 staff.", random.Random(3), only={"450"})
        self.assertIn("1998", out)
        self.assertNotIn("450", out)


class PolarityTests(unittest.TestCase):
    def test_negates_first_auxiliary(self):
        self.assertEqual(g.flip_polarity("The drug is effective."), "The drug is not effective.")

    def test_removes_negation(self):
        self.assertEqual(g.flip_polarity("The drug is not effective."), "The drug is effective.")
        self.assertEqual(g.flip_polarity("It wasn't approved."), "It was approved.")
        self.assertEqual(g.flip_polarity("Masks cannot stop it."), "Masks can stop it.")

    def test_leaves_double_negation_alone(self):
        self.assertIsNone(g.flip_polarity("It is not true that it was not approved."))

    def test_no_auxiliary_no_edit(self):
        self.assertIsNone(g.flip_polarity("Paris hosts the museum."))


class PairGeneratorTests(unittest.TestCase):
    EVIDENCE = "The company reported revenue of 40 million dollars in 2019."
    CLAIM = "Revenue was 40 million dollars in 2019."

    def test_evidence_flip_keeps_claim_and_contradicts(self):
        out = g.evidence_number_flip(self.EVIDENCE, self.CLAIM, g.SUPPORTED, random.Random(4))
        evidence, claim, label = out
        self.assertEqual(claim, self.CLAIM)
        self.assertNotEqual(evidence, self.EVIDENCE)
        self.assertEqual(label, g.CONTRADICTED)

    def test_claim_flip_keeps_evidence(self):
        evidence, claim, label = g.claim_number_flip(self.EVIDENCE, self.CLAIM, g.SUPPORTED, random.Random(5))
        self.assertEqual(evidence, self.EVIDENCE)
        self.assertNotEqual(claim, self.CLAIM)
        self.assertEqual(label, g.CONTRADICTED)

    def test_flips_need_a_shared_value_and_support(self):
        rng = random.Random(6)
        self.assertIsNone(g.evidence_number_flip("Revenue grew.", self.CLAIM, g.SUPPORTED, rng))
        self.assertIsNone(g.evidence_number_flip(self.EVIDENCE, self.CLAIM, g.CONTRADICTED, rng))
        self.assertIsNone(g.claim_polarity_flip(self.EVIDENCE, "Paris hosts it.", g.SUPPORTED, rng))

    def test_polarity_flip_pairs(self):
        out = g.claim_polarity_flip("Vaccines are safe for children.", "Vaccines are safe.", g.SUPPORTED, None)
        self.assertEqual(out, ("Vaccines are safe for children.", "Vaccines are not safe.", g.CONTRADICTED))
        out = g.evidence_polarity_flip("Vaccines are safe for children.", "Vaccines are safe.", g.SUPPORTED, None)
        self.assertEqual(out, ("Vaccines are not safe for children.", "Vaccines are safe.", g.CONTRADICTED))

    def test_mismatched_shares_no_content_word(self):
        pool = ["Cats sleep a lot.", "Revenue rose in 2019.", "The river floods each spring."]
        rng = random.Random(7)
        for _ in range(20):
            other = g.mismatched(self.CLAIM, pool, rng)
            self.assertEqual(g.overlap(other, self.CLAIM), 0)

    def test_related_but_silent_prefers_overlap_and_excludes(self):
        cands = ["Revenue in dollars fell in 2018.", "Cats sleep.", self.EVIDENCE]
        self.assertEqual(g.related_but_silent(self.CLAIM, cands, exclude={self.EVIDENCE}), cands[0])
        self.assertIsNone(g.related_but_silent(self.CLAIM, ["Cats sleep."]))


class WindowTests(unittest.TestCase):
    def test_short_passage_whole(self):
        self.assertEqual(g.evidence_window("A  short\npassage.", "x"), "A short passage.")

    def test_long_passage_keeps_best_sentences_in_order(self):
        filler = " ".join(f"Filler sentence number {i} about weather." for i in range(40))
        text = "Revenue reached 40 million dollars. " + filler + " The revenue figure was audited."
        out = g.evidence_window(text, "Revenue was 40 million dollars.", budget=200, keep=2)
        self.assertTrue(out.startswith("Revenue reached 40 million dollars."))
        self.assertIn("The revenue figure was audited.", out)
        self.assertLessEqual(len(out), 200)


if __name__ == "__main__":
    unittest.main()
