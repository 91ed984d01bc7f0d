# cmake -DIN=file.yaml -DOUT=file.c -P embed.cmake
# Writes a C file defining hs_default_scenario_yaml[] with IN's bytes.
file(READ ${IN} HEX HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BODY "${HEX}")
file(WRITE ${OUT}.tmp
  "/* generated from scenarios/default.yaml, do not edit */\n"
  "#include <stddef.h>\n"
  "const char hs_default_scenario_yaml[] = {${BODY} 0x00};\n"
  "const size_t hs_default_scenario_len = sizeof hs_default_scenario_yaml - 1;\n")
file(RENAME ${OUT}.tmp ${OUT})
