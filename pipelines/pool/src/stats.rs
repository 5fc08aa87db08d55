//! The statistics a labelled pool is scored with. Each estimator is pinned
//! by a worked example from the literature in the tests below.
//!
//! Nothing here prints a ratio on its own: callers use [`Ratio`] so that a
//! denominator under [`MIN_DENOMINATOR`] is shown as counts, never as a
//! percentage that means nothing.

use serde::Serialize;

/// Below this many units in a denominator a ratio is not reported: the
/// counts are shown instead (issue #7: "fewer than 5").
pub const MIN_DENOMINATOR: u64 = 5;

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A proportion with its counts and, when the denominator allows, a value
/// and an interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ratio {
    /// Numerator count.
    pub numerator: u64,
    /// Denominator count.
    pub denominator: u64,
    /// The point estimate, when `denominator >= MIN_DENOMINATOR`.
    pub value: Option<f64>,
    /// A 95% interval, when `denominator >= MIN_DENOMINATOR`.
    pub interval: Option<(f64, f64)>,
}

impl Ratio {
    /// A proportion `x / n` with a Wilson score interval.
    pub fn wilson(x: u64, n: u64) -> Ratio {
        if n < MIN_DENOMINATOR {
            return Ratio { numerator: x, denominator: n, value: None, interval: None };
        }
        Ratio { numerator: x, denominator: n, value: Some(x as f64 / n as f64), interval: wilson_interval(x, n, Z95) }
    }

    /// Human form: `0.812 [0.70, 0.89] (26/32)` or `3/4 (too few to give a ratio)`.
    pub fn describe(&self) -> String {
        match (self.value, self.interval) {
            (Some(v), Some((lo, hi))) => format!("{v:.3} [{lo:.3}, {hi:.3}] ({}/{})", self.numerator, self.denominator),
            (Some(v), None) => format!("{v:.3} ({}/{})", self.numerator, self.denominator),
            _ => format!("{}/{} (fewer than {MIN_DENOMINATOR} in the denominator: no ratio given)", self.numerator, self.denominator),
        }
    }
}

/// Wilson score interval for a binomial proportion `x / n` at normal
/// quantile `z`. `None` when `n == 0` or `x > n`.
pub fn wilson_interval(x: u64, n: u64, z: f64) -> Option<(f64, f64)> {
    if n == 0 || x > n {
        return None;
    }
    let n = n as f64;
    let p = x as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// Cohen's kappa between two raters over the same items. `pairs` holds the
/// two labels of each item. `None` when there are no items, or when chance
/// agreement is 1 (both raters used one and the same label throughout).
pub fn cohen_kappa<L: Ord + Clone>(pairs: &[(L, L)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let mut labels: Vec<L> = pairs.iter().flat_map(|(a, b)| [a.clone(), b.clone()]).collect();
    labels.sort();
    labels.dedup();
    let n = pairs.len() as f64;
    let agree = pairs.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let mut chance = 0.0;
    for l in &labels {
        let pa = pairs.iter().filter(|(a, _)| a == l).count() as f64 / n;
        let pb = pairs.iter().filter(|(_, b)| b == l).count() as f64 / n;
        chance += pa * pb;
    }
    if (1.0 - chance).abs() < 1e-12 {
        return None;
    }
    Some((agree - chance) / (1.0 - chance))
}

/// ln(n!) by summation; exact enough for the table sizes a labelling
/// session produces (hundreds), and free of overflow.
fn ln_factorial(n: u64) -> f64 {
    (2..=n).map(|k| (k as f64).ln()).sum()
}

fn ln_choose(n: u64, k: u64) -> f64 {
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// Two-sided Fisher's exact test on a 2×k table (`top[j]`, `bottom[j]` are
/// the counts of category j in the two groups): the Freeman–Halton
/// extension, summing the probabilities of all tables with the same margins
/// that are no more likely than the observed one. `None` when a row or the
/// table is empty or the rows differ in length.
pub fn fisher_exact_2xk(top: &[u64], bottom: &[u64]) -> Option<f64> {
    if top.len() != bottom.len() || top.is_empty() {
        return None;
    }
    let cols: Vec<u64> = top.iter().zip(bottom).map(|(a, b)| a + b).collect();
    let r1: u64 = top.iter().sum();
    let n: u64 = cols.iter().sum();
    if n == 0 {
        return None;
    }
    let ln_total = ln_choose(n, r1);
    let ln_p = |t: &[u64]| -> f64 { t.iter().zip(&cols).map(|(&a, &c)| ln_choose(c, a)).sum::<f64>() - ln_total };
    let observed = ln_p(top);
    // Relative tolerance so tables as likely as the observed one count,
    // despite rounding in the logs (R's fisher.test uses 1 + 1e-7).
    let cutoff = observed + (1.0f64 + 1e-7).ln();
    let mut sum = 0.0;
    let mut current = vec![0u64; cols.len()];
    enumerate(&cols, 0, r1, &mut current, &mut |t| {
        let lp = ln_p(t);
        if lp <= cutoff {
            sum += lp.exp();
        }
    });
    Some(sum.min(1.0))
}

fn enumerate(cols: &[u64], j: usize, remaining: u64, current: &mut Vec<u64>, f: &mut dyn FnMut(&[u64])) {
    if j == cols.len() {
        if remaining == 0 {
            f(current);
        }
        return;
    }
    let rest: u64 = cols[j + 1..].iter().sum();
    let lo = remaining.saturating_sub(rest);
    let hi = remaining.min(cols[j]);
    for a in lo..=hi {
        current[j] = a;
        enumerate(cols, j + 1, remaining - a, current, f);
    }
    current[j] = 0;
}

/// A small deterministic generator (SplitMix64) for the bootstrap and for
/// drawing sessions: seeded by the user, identical on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` (`n > 0`), by rejection so there is no modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// One labelled unit of a stratified sample, for inverse-probability weighting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightedUnit {
    /// The stratum's index (0 = flagged, 1 = passed, or any numbering).
    pub stratum: usize,
    /// Probability that this unit was drawn into the sample.
    pub inclusion_probability: f64,
    /// True when the unit was labelled bad.
    pub bad: bool,
    /// True when the gate flagged it.
    pub flagged: bool,
}

/// Recall of the gate estimated by inverse-probability weighting: the
/// Horvitz–Thompson estimate of bad units the gate flagged over the
/// estimate of all bad units in the pool. `None` when no sampled unit is bad.
pub fn ipw_recall(units: &[WeightedUnit]) -> Option<f64> {
    let mut flagged_bad = 0.0;
    let mut all_bad = 0.0;
    for u in units.iter().filter(|u| u.bad && u.inclusion_probability > 0.0) {
        let w = 1.0 / u.inclusion_probability;
        all_bad += w;
        if u.flagged {
            flagged_bad += w;
        }
    }
    if all_bad == 0.0 { None } else { Some(flagged_bad / all_bad) }
}

/// A percentile bootstrap interval for [`ipw_recall`], resampling within
/// each stratum (so stratum sizes, and with them the weights, are kept).
/// `None` when the point estimate is undefined.
pub fn ipw_recall_bootstrap(units: &[WeightedUnit], replicates: usize, seed: u64, level: f64) -> Option<(f64, f64)> {
    ipw_recall(units)?;
    let mut strata: Vec<Vec<WeightedUnit>> = Vec::new();
    for u in units {
        if strata.len() <= u.stratum {
            strata.resize(u.stratum + 1, Vec::new());
        }
        strata[u.stratum].push(*u);
    }
    let mut rng = SplitMix64::new(seed);
    let mut estimates = Vec::with_capacity(replicates);
    let mut sample = Vec::with_capacity(units.len());
    for _ in 0..replicates {
        sample.clear();
        for s in &strata {
            for _ in 0..s.len() {
                sample.push(s[rng.below(s.len() as u64) as usize]);
            }
        }
        if let Some(r) = ipw_recall(&sample) {
            estimates.push(r);
        }
    }
    if estimates.is_empty() {
        return None;
    }
    estimates.sort_by(|a, b| a.total_cmp(b));
    let alpha = (1.0 - level) / 2.0;
    let at = |q: f64| {
        let idx = ((estimates.len() - 1) as f64 * q).round() as usize;
        estimates[idx.min(estimates.len() - 1)]
    };
    Some((at(alpha), at(1.0 - alpha)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Newcombe, R. G. (1998). Two-sided confidence intervals for the single
    /// proportion: comparison of seven methods. Statistics in Medicine 17,
    /// 857–872, Table I, method 3 (score interval without continuity correction).
    #[test]
    fn wilson_newcombe_1998() {
        for (x, n, lo, hi) in [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)] {
            let (l, h) = wilson_interval(x, n, Z95).unwrap();
            assert!(close(l, lo, 5e-5) && close(h, hi, 5e-5), "{x}/{n}: got [{l:.4}, {h:.4}], want [{lo}, {hi}]");
        }
        assert_eq!(wilson_interval(1, 0, Z95), None);
        assert_eq!(wilson_interval(3, 2, Z95), None);
    }

    #[test]
    fn small_denominators_give_counts_not_ratios() {
        let r = Ratio::wilson(3, 4);
        assert_eq!(r.value, None);
        assert!(r.describe().starts_with("3/4 (fewer than 5"));
        assert!(Ratio::wilson(4, 5).value.is_some());
    }

    /// The worked example of Cohen's kappa in Wikipedia's article "Cohen's
    /// kappa" (50 proposals, two readers: 20 yes/yes, 5 yes/no, 10 no/yes,
    /// 15 no/no): p_o = 0.7, p_e = 0.5, kappa = 0.4.
    #[test]
    fn kappa_worked_example() {
        let mut pairs = Vec::new();
        pairs.extend(std::iter::repeat_n(("yes", "yes"), 20));
        pairs.extend(std::iter::repeat_n(("yes", "no"), 5));
        pairs.extend(std::iter::repeat_n(("no", "yes"), 10));
        pairs.extend(std::iter::repeat_n(("no", "no"), 15));
        assert!(close(cohen_kappa(&pairs).unwrap(), 0.4, 1e-12));
        assert_eq!(cohen_kappa::<&str>(&[]), None);
        assert_eq!(cohen_kappa(&[("a", "a"), ("a", "a")]), None);
    }

    /// Fisher (1935), The Design of Experiments: the lady tasting tea,
    /// 3 of 4 cups right each way: two-sided p = 34/70 = 0.4857. And the
    /// worked 2×2 example of Wikipedia's "Fisher's exact test" article
    /// ([[1, 9], [11, 3]]): two-sided p = 0.002759.
    #[test]
    fn fisher_worked_examples() {
        assert!(close(fisher_exact_2xk(&[3, 1], &[1, 3]).unwrap(), 34.0 / 70.0, 1e-9));
        assert!(close(fisher_exact_2xk(&[1, 9], &[11, 3]).unwrap(), 0.002_759_456, 1e-8));
    }

    /// 2×k tables: checked against a direct enumeration of every table with
    /// the same margins, computed with exact integer binomials.
    #[test]
    fn fisher_2xk_by_enumeration() {
        assert!(close(fisher_exact_2xk(&[5, 2, 1, 0], &[1, 3, 4, 6]).unwrap(), 0.015_730_055_977_733_994, 1e-9));
        assert!(close(fisher_exact_2xk(&[3, 3, 2], &[2, 3, 4]).unwrap(), 0.835_458_658_988_070_8, 1e-9));
        assert_eq!(fisher_exact_2xk(&[1], &[1, 2]), None);
        assert_eq!(fisher_exact_2xk(&[0, 0], &[0, 0]), None);
    }

    /// A hand-computed IPW case. Pool: 100 flagged, 900 passed; sample 10 of
    /// each (π = 0.1 and 1/90). Bad labels: 6 flagged, 2 passed. Estimated
    /// bad: flagged 6 / 0.1 = 60, passed 2 × 90 = 180; recall = 60 / 240 = 0.25.
    #[test]
    fn ipw_hand_computed() {
        let mut units = Vec::new();
        for i in 0..10 {
            units.push(WeightedUnit { stratum: 0, inclusion_probability: 0.1, bad: i < 6, flagged: true });
            units.push(WeightedUnit { stratum: 1, inclusion_probability: 10.0 / 900.0, bad: i < 2, flagged: false });
        }
        assert!(close(ipw_recall(&units).unwrap(), 0.25, 1e-12));
        let (lo, hi) = ipw_recall_bootstrap(&units, 500, 7, 0.95).unwrap();
        assert!(lo <= 0.25 && 0.25 <= hi && lo >= 0.0 && hi <= 1.0, "[{lo}, {hi}]");
        // Same seed, same interval.
        assert_eq!(ipw_recall_bootstrap(&units, 500, 7, 0.95), Some((lo, hi)));
        let none_bad: Vec<_> = units.iter().map(|u| WeightedUnit { bad: false, ..*u }).collect();
        assert_eq!(ipw_recall(&none_bad), None);
    }

    #[test]
    fn shuffle_is_a_permutation_and_seeded() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        SplitMix64::new(3).shuffle(&mut a);
        SplitMix64::new(3).shuffle(&mut b);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(a, sorted);
    }
}
