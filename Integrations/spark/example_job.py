"""An example Spark job: geocode a CSV of points (columns id, lat, lon) and write JSON.

Submitted with the engine shipped by spark-submit itself (see README.md):

    spark-submit --master yarn \
      --files dist/geocode \
      --archives dist/geocode-data.tar.gz#geocode-data,dist/geocode-libs.tar.gz#geocode-libs \
      --py-files geocode_spark.py \
      example_job.py points.csv placed/ [--fields all]

test.sh runs this same line with --master local[2] and compares the output with `geocode batch`.
"""

import argparse

from pyspark.sql import SparkSession
from pyspark.sql.types import LongType, StringType, StructField, StructType

from geocode_spark import GeocodeOptions, geocode_dataframe


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("points")
    parser.add_argument("output")
    parser.add_argument("--fields", default="default")
    parser.add_argument("--libs", action="store_true", help="use the shipped geocode-libs archive")
    args = parser.parse_args()

    spark = SparkSession.builder.appName("geocode-example").getOrCreate()
    schema = StructType([StructField("id", LongType(), False), StructField("lat", StringType()),
                         StructField("lon", StringType())])
    points = spark.read.csv(args.points, header=True, schema=schema)
    options = GeocodeOptions(binary="geocode", data="geocode-data", fields=args.fields.split(","),
                             lib_dir="geocode-libs" if args.libs else None)
    geocode_dataframe(points, lat="lat", lon="lon", options=options).write.mode("overwrite").json(args.output)
    spark.stop()


if __name__ == "__main__":
    main()
