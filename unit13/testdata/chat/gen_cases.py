# Renders each real chat template in this folder as Hugging Face transformers does
# (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols,
# raise_exception, strftime_now, tojson without ASCII escapes), to make the
# expected prompts of the Go tests.
import json, os, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.exceptions import TemplateError
import jinja2.ext

here = os.path.dirname(os.path.abspath(__file__))

def raise_exception(message):
    raise TemplateError(message)

def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = lambda fmt: "27 Nov 2026"  # fixed: the Go side passes the same day

models = {
    "tinyllama": ("<s>", "</s>"),
    "llama3.2": ("<|begin_of_text|>", "<|eot_id|>"),
    "qwen2.5": ("", "<|im_end|>"),
    "mistral-nemo": ("<s>", "</s>"),
    "phi3": ("<s>", "<|endoftext|>"),
}
convs = [
    ("one user message", [{"role": "user", "content": "Hello!"}]),
    ("a system message", [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is 2+2?"}]),
    ("three turns", [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello, how can I help?"}, {"role": "user", "content": "Tell me a joke."}]),
    ("awkward text", [{"role": "user", "content": "  spaces around \n\"quotes\" & <tags> {{ not jinja }} {% raw %} é ✓ 日本  \n"}]),
    ("two users in a row", [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]),
    ("an empty message", [{"role": "user", "content": ""}]),
]
out = []
for name, (bos, eos) in models.items():
    src = open(os.path.join(here, f"{name}.jinja")).read()
    t = env.from_string(src)
    for what, msgs in convs:
        for agp in (True, False):
            case = {"template": name, "what": what, "messages": msgs, "add_generation_prompt": agp, "bos_token": bos, "eos_token": eos}
            try:
                case["want"] = t.render(messages=msgs, add_generation_prompt=agp, bos_token=bos, eos_token=eos)
            except TemplateError as e:
                case["error"] = str(e)
            out.append(case)
with open(os.path.join(here, "cases.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
