package features

// atomicWeights are the standard atomic weights (Da) of H (Z = 1) to Xe
// (Z = 54) as RDKit 2022.09's periodic table gives them
// (Chem.GetPeriodicTable().GetAtomicWeight), so that a calculation's
// molecular weight equals the mg:molecularWeight that package chem (RDKit)
// computes for the registered molecule. It is never modified.
var atomicWeights = [...]float64{0,
	1.008, 4.003, 6.941, 9.012, 10.812, 12.011, 14.007, 15.999, 18.998, 20.18,
	22.99, 24.305, 26.982, 28.086, 30.974, 32.067, 35.453, 39.948, 39.098, 40.078,
	44.956, 47.867, 50.942, 51.996, 54.938, 55.845, 58.933, 58.693, 63.546, 65.39,
	69.723, 72.61, 74.922, 78.96, 79.904, 83.8, 85.468, 87.62, 88.906, 91.224,
	92.906, 95.94, 98.0, 101.07, 102.906, 106.42, 107.868, 112.412, 114.818, 118.711,
	121.76, 127.6, 126.904, 131.29,
}

// atomicWeight returns the standard atomic weight of element z (1..54).
func atomicWeight(z int) (float64, bool) {
	if z <= 0 || z >= len(atomicWeights) {
		return 0, false
	}
	return atomicWeights[z], true
}
