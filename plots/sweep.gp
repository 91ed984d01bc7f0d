# sweep.gp -- a sweep's step (or epoch, or total) time against one varied
# key, one line per value of a second key: the closed form solid, the
# replay dashed in the same colour.
# Run by `hetsim plot --kind sweep SWEEP.csv -o F` (a CSV of `hetsim
# sweep`), which passes with -e:
#   dat      one block (gnuplot index) per series, rows "x label closed
#            replay" (times in tunit; replay NaN when not replayed)
#   nser     the number of blocks; s0, s1, ... their titles ("" for one)
#   replay   1: draw the replay column too
#   numx     1: x is a number; 0: x is a position, its label the tic
#   logx     1: logarithmic x axis; xlo, xhi: the x range
#   intx     1: every x is a whole number (a device count, a batch): whole-
#            number ticks only, never 2.5 devices
#   xlab     the x axis' title; fixed: the other keys held, or ""
#   fig      step, epoch or total; tunit, ttl, W, H, term, out as elsewhere
eval sprintf("set terminal %s size %d,%d noenhanced font 'Sans,10' background rgb 'white'", term, W, H)
set output out
if (strlen(fixed) > 0) { set title ttl."\n".fixed font ",11" } else { set title ttl font ",11" }
set xlabel xlab
set ylabel sprintf("%s time (%s)", fig, tunit)
set yrange [0:*]
set grid lc rgb "#e4e4e4"
# the legend: one block right of the plot, read top to bottom
set key outside right top vertical Left reverse samplen 3 width -6 font ",9"
if (logx) set logscale x
set xrange [xlo:xhi]
if (numx && intx) {
  set format x "%.0f"
  if (!logx) {
    xstep = ceil((xhi - xlo) / 10.0)
    set xtics xstep
    set mxtics 1
  }
}
sname(i) = value(sprintf("s%d", i))
lab(i, what) = strlen(sname(i)) > 0 ? sname(i)."  ".what : what
nrep = replay ? nser - 1 : -1
if (numx) {
  plot for [i=0:nser-1] dat index i using 1:3 with linespoints pt 7 ps 0.8 \
           lw 2 lc i + 1 title lab(i, "source formula, max T(i)"), \
       for [i=0:nrep] dat index i using 1:4 with linespoints pt 5 ps 0.8 \
           lw 2 dt 2 lc i + 1 title lab(i, "replay (recommended)")
} else {
  plot for [i=0:nser-1] dat index i using 1:3:xtic(2) with linespoints \
           pt 7 ps 0.8 lw 2 lc i + 1 title lab(i, "source formula, max T(i)"), \
       for [i=0:nrep] dat index i using 1:4 with linespoints pt 5 ps 0.8 \
           lw 2 dt 2 lc i + 1 title lab(i, "replay (recommended)")
}
