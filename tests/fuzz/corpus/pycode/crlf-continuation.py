import os
x = 1 + \
  2
os.system(
  "id")
