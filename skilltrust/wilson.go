package skilltrust

import "math"

// Z is the normal quantile of the displayed interval.
const Z = 1.959963984540054

// Estimate is a policy-adjusted uncertainty interval for the success rate:
// the Wilson score interval computed from effective (weighted, capped)
// counts. The reports behind it are dependent and selectively published, so
// it is not a certified 95% coverage guarantee, nor the probability of
// success on the next task.
type Estimate struct {
	Midpoint float64 `json:"midpoint"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
}

// Wilson returns the Wilson interval for s effective successes out of n
// effective binary outcomes (n > 0): with p = s/n and d = 1 + Z²/n, the
// midpoint (p + Z²/(2n))/d and the bounds midpoint ∓ Z·sqrt(p(1−p)/n +
// Z²/(4n²))/d, clipped to [0, 1].
func Wilson(s, n float64) Estimate {
	p := clip(s / n)
	z2 := Z * Z
	d := 1 + z2/n
	mid := (p + z2/(2*n)) / d
	half := Z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / d
	return Estimate{Midpoint: clip(mid), Lower: clip(mid - half), Upper: clip(mid + half)}
}

func clip(x float64) float64 { return math.Min(1, math.Max(0, x)) }
