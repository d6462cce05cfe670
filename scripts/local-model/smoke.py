"""The end of scripts/local-model.sh install, run by the server venv's python: load the model
and generate two tokens, so that a build this CPU cannot run dies here (SIGILL), not at a
user's first question.  Prints the tokens on stdout; llama.cpp's log goes to stderr.

    smoke.py MODEL_PATH THREADS
"""
import sys

from llama_cpp import Llama

llm = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=int(sys.argv[2]))
print(repr(llm.create_completion("SELECT 1", max_tokens=2, temperature=0)["choices"][0]["text"]))
