# Vulkan CTest lines (included by tests/CMakeLists.txt when the backend is built).
# The Vulkan suites read internal headers of the backend (generated shader ids).
target_include_directories(tessera_tests PRIVATE ${TESSERA_GEN_DIR})
target_compile_definitions(tessera_tests PRIVATE VK_NO_PROTOTYPES)

# Every in-scope ONNX node test that passes on the CPU must pass on Vulkan.
add_test(NAME onnx_conformance_vulkan
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/vulkan/check_vulkan_conformance.py
          --tessera $<TARGET_FILE:tessera_cli>
          --known-failures ${CMAKE_SOURCE_DIR}/tests/vulkan/known_failures.txt
          --min-all-on-vulkan 318)
# The breadth issue's list: every case that passes on the CPU passes on Vulkan, and of its
# 399 float-only cases at least 375 run every node on Vulkan (none folded; the issue asks 370).
add_test(NAME onnx_inference_vulkan
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/vulkan/check_vulkan_conformance.py
          --tessera $<TARGET_FILE:tessera_cli>
          --known-failures ${CMAKE_SOURCE_DIR}/tests/vulkan/known_failures.txt
          --list ${CMAKE_SOURCE_DIR}/tests/conformance/onnx_node_inference.txt
          --float-only ${CMAKE_SOURCE_DIR}/tests/conformance/onnx_node_inference_float_only.txt
          --min-all-on-vulkan 375)
set_tests_properties(onnx_inference_vulkan PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
# The same run with the Khronos validation layer: any validation error fails the case.
add_test(NAME onnx_conformance_vulkan_validation
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/vulkan/check_vulkan_conformance.py
          --tessera $<TARGET_FILE:tessera_cli>
          --known-failures ${CMAKE_SOURCE_DIR}/tests/vulkan/known_failures.txt --validation)
# The Vulkan GoogleTest suites again, with the validation layer on.
add_test(NAME vulkan_validation
  COMMAND $<TARGET_FILE:tessera_tests> --gtest_filter=Vulkan*)
set_tests_properties(vulkan_validation onnx_conformance_vulkan_validation PROPERTIES
  ENVIRONMENT "TESSERA_VULKAN_VALIDATION=1;XDG_RUNTIME_DIR=/tmp")
add_test(NAME paddleocr_vulkan
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/models/check_paddleocr.py
          --tessera $<TARGET_FILE:tessera_cli> --backend vulkan)
# Runs with a fresh pipeline cache directory twice: the second start must load the cache.
add_test(NAME vulkan_pipeline_cache
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/vulkan/check_pipeline_cache.py
          --tessera $<TARGET_FILE:tessera_cli>
          --model ${CMAKE_SOURCE_DIR}/third_party/models/paddleocr/ch_ppocr_mobile_v2.0_cls_infer.onnx
          --shape x=1x3x48x192)
set_tests_properties(onnx_conformance_vulkan onnx_conformance_vulkan_validation paddleocr_vulkan
  vulkan_pipeline_cache PROPERTIES SKIP_RETURN_CODE 77)
# fp16 mode (fp16 storage, fp32 arithmetic) on the PaddleOCR models, judged in the terms of
# their answers (issue 15, docs/VULKAN.md): the classifier's and recogniser's top classes
# equal fp32's at every position, probabilities within 0.02; the detector's map thresholded
# at 0.3 differs from fp32's on at most 0.1% of the pixels, and its largest error is at most
# 0.1 (lavapipe: 0.018 at 320, 0.031 at 640).
add_test(NAME paddleocr_vulkan_fp16
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/models/check_paddleocr.py
          --tessera ${CMAKE_SOURCE_DIR}/tests/models/tessera_fp16.sh --backend vulkan --fp16-terms
          --fp16-det-max-abs 0.1)
set_tests_properties(paddleocr_vulkan_fp16 PROPERTIES SKIP_RETURN_CODE 77
  ENVIRONMENT "TESSERA_REAL=$<TARGET_FILE:tessera_cli>")
add_test(NAME vulkan_codegen COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/vulkan/check_codegen.py)

# Every case of the ONNX node-test folder (932, in scope or not) on vulkan: a PASS, a FAIL or a
# SKIP with its reason, never a crash or a time-out.
add_test(NAME onnx_node_all_no_crash_vulkan
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/conformance/check_no_crash.py
          --tessera $<TARGET_FILE:tessera_cli> --backend vulkan)
set_tests_properties(onnx_node_all_no_crash_vulkan PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
# The line reductions' GROUP builds on lines of every length, as a GPU runs short lines when
# they are few (core/src/SplitReduction.hpp, groupPerLine): the suites again, every line a
# work-group's.
add_test(NAME vulkan_group_lines_always
  COMMAND $<TARGET_FILE:tessera_tests>
          --gtest_filter=VulkanSubgroupTrees*:VulkanRowNormalization*:VulkanArgMinMax*:VulkanHardmax*:VulkanReduce*)
set_tests_properties(vulkan_group_lines_always PROPERTIES ENVIRONMENT "TESSERA_VULKAN_GROUP_LINES=always")
