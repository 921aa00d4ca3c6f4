#!/bin/sh
# Draws the sample media immogate serves under /samples/ (samples/) and the walkthroughs' upload
# (examples/living-room.jpg), with Debian's imagemagick and ffmpeg. The bytes are committed; run
# this only to change them. The pictures are drawn, not photographed: no rights attach to them.
set -eu
cd "$(dirname "$0")/.."
out=samples
mkdir -p "$out"
# Fixed timestamps and no text chunks, so that a second run writes the same bytes.
strip="-strip -define png:exclude-chunks=date,time"

# A living room: wall, floor, a window with sky, a sofa, a rug, a lamp.
convert -size 640x427 gradient:'#efe6d8-#d9ccb8' \
  -fill '#a0744f' -draw 'rectangle 0,300 640,427' \
  -fill '#8fb8de' -stroke '#ffffff' -strokewidth 8 -draw 'rectangle 380,60 580,230' \
  -stroke '#ffffff' -strokewidth 4 -draw 'line 480,60 480,230' -draw 'line 380,145 580,145' \
  -stroke none -fill '#4a5d73' -draw 'roundrectangle 60,210 330,320 18,18' \
  -fill '#5b7089' -draw 'roundrectangle 80,180 310,250 14,14' \
  -fill '#c2553f' -draw 'ellipse 330,380 190,30 0,360' \
  -fill '#333333' -draw 'rectangle 356,150 360,320' -fill '#f3d37a' -draw 'polygon 330,150 386,150 372,110 344,110' \
  $strip -quality 78 -sampling-factor 4:2:0 "$out/living-room.jpg"

# A kitchen: tiles, cupboards, a worktop, an oven.
convert -size 640x427 xc:'#f4f1ea' \
  -fill '#dfe7ea' -draw 'rectangle 0,120 640,250' \
  -fill '#6f8f72' -draw 'rectangle 20,20 620,110' \
  -fill '#3b3b3b' -draw 'rectangle 0,250 640,268' \
  -fill '#6f8f72' -draw 'rectangle 20,268 620,420' \
  -fill '#222222' -draw 'rectangle 250,290 390,400' -fill '#444444' -draw 'rectangle 262,310 378,380' \
  -stroke '#9aa9ad' -strokewidth 1 -draw 'line 0,160 640,160' -draw 'line 0,205 640,205' \
  $strip -quality 78 -sampling-factor 4:2:0 "$out/kitchen.jpg"

# A floor plan: three rooms, a bath, a hall, doors left open as gaps.
convert -size 600x400 xc:white -fill none -stroke black -strokewidth 6 \
  -draw 'rectangle 20,20 580,380' \
  -draw 'line 320,20 320,160' -draw 'line 320,220 320,380' \
  -draw 'line 20,240 140,240' -draw 'line 200,240 320,240' \
  -draw 'line 320,200 420,200' -draw 'line 480,200 580,200' \
  -draw 'line 450,200 450,380' \
  -stroke none -fill '#333333' -pointsize 20 \
  -draw "text 110,130 'Living 28 m2'" -draw "text 400,110 'Bedroom 14 m2'" \
  -draw "text 100,320 'Kitchen 9 m2'" -draw "text 350,300 'Hall'" -draw "text 490,300 'Bath'" \
  -colors 8 -depth 8 $strip "$out/floor-plan.png"

# A video tour: a three-second pan over the living room, H.264 in MP4, 320x180 at 10 frames a second.
ffmpeg -loglevel error -y -loop 1 -i "$out/living-room.jpg" -t 3 -r 10 \
  -vf "scale=640:-2,crop=320:180:'min(t*100,320)':120" \
  -c:v libx264 -preset veryslow -crf 34 -pix_fmt yuv420p -movflags +faststart \
  -map_metadata -1 -fflags +bitexact -flags:v +bitexact "$out/tour.mp4"

cp "$out/living-room.jpg" examples/living-room.jpg
ls -l "$out" examples/living-room.jpg
