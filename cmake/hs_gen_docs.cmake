# Writes the man pages and the bash completion with the built tool's
# hidden modes, from its option tables (so they cannot drift from --help):
#   OUT/man1/hetsim.1, OUT/man1/hetsim-CMD.1 for every command,
#   OUT/completion/hetsim, then OUT/hetsim.stamp.
# cmake -DHETSIM=path/to/hetsim -DOUT=dir -P hs_gen_docs.cmake
foreach(v HETSIM OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "hs_gen_docs.cmake: -D${v}=... is missing")
  endif()
endforeach()

function(hs_run out)
  execute_process(COMMAND ${HETSIM} ${ARGN} OUTPUT_FILE ${out}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hetsim ${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()

execute_process(COMMAND ${HETSIM} --list-commands OUTPUT_VARIABLE cmds
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hetsim --list-commands failed (${rc})")
endif()
string(REGEX REPLACE "\n$" "" cmds "${cmds}")
string(REPLACE "\n" ";" cmds "${cmds}")

file(REMOVE_RECURSE ${OUT}/man1 ${OUT}/completion)
file(MAKE_DIRECTORY ${OUT}/man1 ${OUT}/completion)
hs_run(${OUT}/man1/hetsim.1 --help-man)
foreach(c ${cmds})
  hs_run(${OUT}/man1/hetsim-${c}.1 --help-man ${c})
endforeach()
hs_run(${OUT}/completion/hetsim --completion bash)
file(TOUCH ${OUT}/hetsim.stamp)
