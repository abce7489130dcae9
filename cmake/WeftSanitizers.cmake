# WEFT_SANITIZER=thread  : ThreadSanitizer; fiber switches are annotated (runtime/src/sanitizer.hpp).
# WEFT_SANITIZER=address : AddressSanitizer + UndefinedBehaviorSanitizer; fiber switches annotated.
if(WEFT_SANITIZER STREQUAL "thread")
  add_compile_options(-fsanitize=thread -g -O1)
  add_link_options(-fsanitize=thread)
  add_compile_definitions(WEFT_TSAN=1)
elseif(WEFT_SANITIZER STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g -O1)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(WEFT_ASAN=1)
elseif(NOT WEFT_SANITIZER STREQUAL "")
  message(FATAL_ERROR "WEFT_SANITIZER='${WEFT_SANITIZER}' is not one of: '', thread, address")
endif()
