package interact

import "math"

// CellSize is the edge of a grid cell (Å): the largest cutoff (π–cation,
// 6 Å) spans at most two cells each way.
const CellSize = 4.0

type cell [3]int32

// grid is a spatial hash of points: a map from cell to the indexes of the
// points in it, so memory follows the number of points, not the extent
// of the box.
type grid struct {
	cells map[cell][]int32
	pos   [][3]float64
}

func cellOf(p [3]float64) cell {
	return cell{int32(math.Floor(p[0] / CellSize)), int32(math.Floor(p[1] / CellSize)), int32(math.Floor(p[2] / CellSize))}
}

func newGrid(pos [][3]float64) *grid {
	g := &grid{cells: map[cell][]int32{}, pos: pos}
	for i, p := range pos {
		c := cellOf(p)
		g.cells[c] = append(g.cells[c], int32(i))
	}
	return g
}

// within calls fn for every point within r of p (r ≤ 2·CellSize reaches
// all of them).
func (g *grid) within(p [3]float64, r float64, fn func(i int, d float64)) {
	c := cellOf(p)
	k := int32(math.Ceil(r / CellSize))
	r2 := r * r
	for dx := -k; dx <= k; dx++ {
		for dy := -k; dy <= k; dy++ {
			for dz := -k; dz <= k; dz++ {
				for _, i := range g.cells[cell{c[0] + dx, c[1] + dy, c[2] + dz}] {
					q := g.pos[i]
					d2 := sq(q[0]-p[0]) + sq(q[1]-p[1]) + sq(q[2]-p[2])
					if d2 <= r2 {
						fn(int(i), math.Sqrt(d2))
					}
				}
			}
		}
	}
}

func sq(x float64) float64 { return x * x }

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func add(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func scale(a [3]float64, f float64) [3]float64 {
	return [3]float64{a[0] * f, a[1] * f, a[2] * f}
}
func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm(a [3]float64) float64    { return math.Sqrt(dot(a, a)) }
func dist(a, b [3]float64) float64 { return norm(sub(a, b)) }
func unit(a [3]float64) [3]float64 {
	n := norm(a)
	if n < 1e-12 {
		return [3]float64{}
	}
	return scale(a, 1/n)
}

// angle is the angle between two vectors in degrees (0 for a zero vector).
func angle(a, b [3]float64) float64 {
	na, nb := norm(a), norm(b)
	if na < 1e-12 || nb < 1e-12 {
		return 0
	}
	c := dot(a, b) / (na * nb)
	return math.Acos(math.Max(-1, math.Min(1, c))) * 180 / math.Pi
}

func centroid(pos [][3]float64, idx []int) [3]float64 {
	var c [3]float64
	for _, i := range idx {
		c = add(c, pos[i])
	}
	return scale(c, 1/float64(len(idx)))
}

// ringNormal is the unit normal of a ring's mean plane: the mean of the
// cross products of consecutive atoms' vectors from the centre (the ring
// atoms are in ring order).
func ringNormal(pos [][3]float64, idx []int, c [3]float64) [3]float64 {
	var n [3]float64
	for k := range idx {
		a := sub(pos[idx[k]], c)
		b := sub(pos[idx[(k+1)%len(idx)]], c)
		n = add(n, cross(a, b))
	}
	return unit(n)
}

// projectOffset is the distance from c to the projection of p on the
// plane through c with unit normal n.
func projectOffset(p, c, n [3]float64) float64 {
	v := sub(p, c)
	return norm(sub(v, scale(n, dot(v, n))))
}
