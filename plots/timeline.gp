# timeline.gp -- a replay's step timeline, like the source's figures 3 and 4:
# per device a CPU lane (data loading of the NEXT batch), a compute lane
# (forward, first backward op, rest of the backward) and a ring lane (one
# bordered box per all-reduce round).  Run by `hetsim plot RUN.h5 -o F`,
# which writes the data files and passes, with gnuplot -e:
#   ev      data file: one index block per phase present, rows
#           "x0 x1 y half_height round" (x in tunit from the first step)
#   titles  legend title of each block (quoted words, in block order); a
#           phase with a box too short to see at this scale, drawn at a
#           minimum width, says so in its title
#   colors  colour of each block (words), nblk: number of blocks
#   lanes   rows "y label" naming the lanes; ymax: the last lane's y
#   xmax    the end of the last step shown (x runs from 0)
#   borders 1: outline every box (each ring round visible); 0 for a ring of
#           so many rounds that outlines would hide the colours
#   marks   rows "x label": step starts (dashed lines)
#   tunit   time unit of x; ttl: title; W, H: size; term, out: terminal, file
eval sprintf("set terminal %s size %d,%d noenhanced font 'Sans,10' background rgb 'white'", term, W, H)
set output out
set title ttl font ",11"
set xlabel sprintf("time from the start of the first step shown (%s)", tunit)
set yrange [ymax + 0.8 : -0.8]
set xrange [0 : xmax]
set ytics scale 0 font ",9"
set xtics nomirror out
set border 1
set grid xtics lc rgb "#e4e4e4" dt 1
# the legend: one block right of the lanes, read top to bottom
set rmargin at screen 0.74
set key at screen 0.755, graph 1 left top vertical Left reverse samplen 2 \
    spacing 1.2 font ",9"
if (borders) set style fill solid 1.0 border lc rgb "#303030"; \
else set style fill solid 1.0 noborder
set offsets 0, 0, 0, 0
plot for [i=1:nblk] ev index (i-1) using (($1+$2)/2):3:(($2-$1)/2):4 \
         with boxxyerror lc rgb word(colors, i) title word(titles, i), \
     lanes using (NaN):1:ytic(2) notitle, \
     marks using 1:(-0.8):(0):(ymax + 1.6) with vectors nohead dt 2 lw 1 \
         lc rgb "#606060" notitle, \
     marks using 1:(-0.55):2 with labels left offset 0.4,0 font ",8" \
         tc rgb "#404040" notitle
