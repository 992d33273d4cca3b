// Built only by add_opcode_test.sh, inside a copy of the tree patched with
// add_opcode.patch: reads an HLO module, verifies it, prints it, checks that
// it survives HloModuleProto export and import unchanged, and evaluates it
// (the module takes no parameters). Output is checked with FileCheck.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: add_opcode_driver FILE.hlo\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  auto module = xlite::ParseHloModule(text.str());
  if (!module.ok()) {
    std::cerr << module.status().message() << "\n";
    return 1;
  }
  if (absl::Status status = xlite::VerifyModule(**module); !status.ok()) {
    std::cerr << status.message() << "\n";
    return 1;
  }
  const std::string printed = xlite::PrintModule(**module);
  std::cout << printed;
  auto proto = xlite::ModuleToProto(**module);
  if (!proto.ok()) {
    std::cerr << proto.status().message() << "\n";
    return 1;
  }
  auto imported = xlite::ModuleFromProto(*proto);
  if (!imported.ok()) {
    std::cerr << imported.status().message() << "\n";
    return 1;
  }
  const std::string reimported = xlite::PrintModule(**imported);
  std::cout << "proto round trip: "
            << (reimported == printed ? "same module" : "DIFFERS") << "\n";
  if (reimported != printed)
    std::cerr << "after the round trip:\n" << reimported;
  auto result = xlite::EvaluateModule(**module, {});
  if (!result.ok()) {
    std::cerr << result.status().message() << "\n";
    return 1;
  }
  std::cout << "result: " << result->ToString() << "\n";
  return 0;
}
