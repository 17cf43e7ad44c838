package qm

// Conversion constants, CODATA 2018 recommended values (Tiesinga et al.,
// Rev. Mod. Phys. 93, 025010 (2021); https://physics.nist.gov/cuu/Constants).
// Every parser and every consumer converts with these and nothing else.
const (
	// HartreeToEV is the hartree energy in eV.
	HartreeToEV = 27.211386245988
	// HartreeToKJPerMol is the hartree energy times the Avogadro constant, in kJ/mol.
	HartreeToKJPerMol = 2625.4996394799
	// HartreeToKcalPerMol is HartreeToKJPerMol divided by 4.184 kJ/kcal (thermochemical calorie).
	HartreeToKcalPerMol = HartreeToKJPerMol / 4.184
	// HartreeToWavenumber is the hartree energy in cm⁻¹ (2 R∞ hc / hc).
	HartreeToWavenumber = 219474.6313632
	// BohrToAngstrom is the Bohr radius in ångström.
	BohrToAngstrom = 0.529177210903
	// AtomicUnitDipoleToDebye converts e·a0 to debye: e·a0 = 8.4783536255e-30 C·m,
	// 1 D = 1e-21/c C·m = 3.33564095198e-30 C·m.
	AtomicUnitDipoleToDebye = 2.541746473
	// SpeedOfLightCmPerS is c in cm/s (exact).
	SpeedOfLightCmPerS = 29979245800.0
	// WavenumberToGHz converts a rotational constant in cm⁻¹ to GHz (c in cm/s / 1e9).
	WavenumberToGHz = SpeedOfLightCmPerS / 1e9
	// MHzToGHz converts MHz to GHz.
	MHzToGHz = 1e-3
)
