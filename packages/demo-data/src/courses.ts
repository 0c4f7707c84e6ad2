import type { EducationType } from 'candidate-documents';
import type { DemoRandom } from './random';

/** How the courses of one field of study (an education major) are named. */
interface FieldCourses {
  /** the subject as degrees name it: "Bachelor of Science in <field>" */
  readonly field: string;
  /** "Bachelor of <degree> in <field>" */
  readonly degree: 'Science' | 'Arts' | 'Education' | 'Engineering' | 'Fine Arts';
  /** the bachelor's degrees of fields that name them otherwise */
  readonly bachelors?: readonly string[];
  /** subjects of master's and doctoral degrees */
  readonly graduate: readonly string[];
}

/** Course names by education major (ISCED-F 2013 detailed field id). */
const FIELD_COURSES: Readonly<Record<number, FieldCourses>> = {
  912: {
    field: 'Medicine',
    degree: 'Science',
    bachelors: ['Doctor of Medicine (MD)', 'Bachelor of Medicine, Bachelor of Surgery (MBBS)'],
    graduate: [
      'Internal Medicine',
      'Paediatrics',
      'General Surgery',
      'Anaesthesia and Intensive Care',
      'Public Health',
    ],
  },
  913: {
    field: 'Nursing',
    degree: 'Science',
    graduate: ['Critical Care Nursing', 'Nursing Education', 'Community Health Nursing', 'Midwifery'],
  },
  914: { field: 'Medical Laboratory Sciences', degree: 'Science', graduate: ['Clinical Laboratory Science'] },
  916: {
    field: 'Pharmacy',
    degree: 'Science',
    bachelors: ['Bachelor of Pharmacy', 'Doctor of Pharmacy (PharmD)'],
    graduate: ['Clinical Pharmacy', 'Pharmaceutical Sciences'],
  },
  911: {
    field: 'Dentistry',
    degree: 'Science',
    bachelors: ['Doctor of Dental Surgery (DDS)', 'Bachelor of Dental Surgery (BDS)'],
    graduate: ['Orthodontics', 'Oral Surgery'],
  },
  915: { field: 'Physiotherapy', degree: 'Science', graduate: ['Neurological Rehabilitation', 'Sports Physiotherapy'] },
  921: { field: 'Health and Social Care', degree: 'Science', graduate: ['Gerontology'] },
  613: { field: 'Computer Science', degree: 'Science', graduate: ['Software Engineering', 'Data Science'] },
  612: { field: 'Computer Networks', degree: 'Science', graduate: ['Network Security', 'Information Systems'] },
  611: { field: 'Information Technology', degree: 'Science', graduate: ['Information Technology'] },
  619: { field: 'Information and Communication Technology', degree: 'Science', graduate: ['Cybersecurity'] },
  212: { field: 'Graphic Design', degree: 'Fine Arts', graduate: ['Visual Communication'] },
  732: {
    field: 'Civil Engineering',
    degree: 'Engineering',
    graduate: ['Structural Engineering', 'Construction Management', 'Water Resources Engineering'],
  },
  715: { field: 'Mechanical Engineering', degree: 'Engineering', graduate: ['Manufacturing Engineering'] },
  713: { field: 'Electrical Engineering', degree: 'Engineering', graduate: ['Power Systems', 'Renewable Energy'] },
  714: { field: 'Electronics and Communication Engineering', degree: 'Engineering', graduate: ['Control Systems'] },
  731: {
    field: 'Architecture',
    degree: 'Science',
    bachelors: ['Bachelor of Architecture'],
    graduate: ['Urban Planning', 'Architecture'],
  },
  711: { field: 'Chemical Engineering', degree: 'Engineering', graduate: ['Petroleum Engineering'] },
  311: { field: 'Economics', degree: 'Science', graduate: ['Development Economics', 'Economics'] },
  114: {
    field: 'Mathematics Education',
    degree: 'Education',
    bachelors: [
      'Bachelor of Education in Mathematics',
      'Bachelor of Education in Science',
      'Bachelor of Education in English Language Teaching',
    ],
    graduate: ['Curriculum and Instruction', 'Education'],
  },
  113: { field: 'Primary Education', degree: 'Education', graduate: ['Education'] },
  112: { field: 'Early Childhood Education', degree: 'Education', graduate: ['Early Childhood Education'] },
  111: { field: 'Education', degree: 'Arts', graduate: ['Educational Leadership'] },
  232: {
    field: 'English Language and Literature',
    degree: 'Arts',
    bachelors: ['Bachelor of Arts in English Language and Literature', 'Bachelor of Arts in Translation'],
    graduate: ['Translation Studies', 'Applied Linguistics'],
  },
  231: { field: 'Teaching English as a Foreign Language', degree: 'Arts', graduate: ['TESOL'] },
  923: {
    field: 'Social Work',
    degree: 'Arts',
    bachelors: ['Bachelor of Social Work'],
    graduate: ['Social Work', 'Psychological Counselling'],
  },
  313: { field: 'Psychology', degree: 'Arts', graduate: ['Clinical Psychology'] },
  411: {
    field: 'Accounting',
    degree: 'Science',
    bachelors: ['Bachelor of Science in Accounting', 'Bachelor of Commerce in Accounting'],
    graduate: ['Accounting', 'Finance'],
  },
  412: { field: 'Finance and Banking', degree: 'Science', graduate: ['Finance'] },
  413: {
    field: 'Business Administration',
    degree: 'Science',
    bachelors: ['Bachelor of Business Administration'],
    graduate: ['Business Administration'],
  },
  414: { field: 'Marketing', degree: 'Science', graduate: ['Marketing'] },
  415: { field: 'Office Administration', degree: 'Arts', graduate: ['Business Administration'] },
  421: { field: 'Law', degree: 'Arts', bachelors: ['Bachelor of Laws (LLB)'], graduate: ['International Law'] },
  416: { field: 'Business and Retail Management', degree: 'Science', graduate: ['Marketing'] },
  716: { field: 'Automotive Engineering', degree: 'Engineering', graduate: ['Automotive Engineering'] },
  723: { field: 'Textile and Fashion Technology', degree: 'Science', graduate: ['Fashion Design'] },
  722: { field: 'Wood Technology', degree: 'Science', graduate: ['Materials Engineering'] },
  721: { field: 'Food Technology', degree: 'Science', graduate: ['Food Science'] },
  1041: { field: 'Logistics and Transport Management', degree: 'Science', graduate: ['Supply Chain Management'] },
  1013: { field: 'Hospitality Management', degree: 'Science', graduate: ['Tourism Management'] },
  1012: { field: 'Beauty Therapy', degree: 'Science', graduate: ['Cosmetic Science'] },
  811: { field: 'Agriculture', degree: 'Science', graduate: ['Agronomy', 'Agricultural Economics'] },
  922: { field: 'Child and Youth Care', degree: 'Arts', graduate: ['Child and Youth Studies'] },
};

/** What a master's degree is "of": Arts for the fields whose bachelor's is, Science otherwise. */
function graduateDegree(courses: FieldCourses): 'Arts' | 'Science' {
  return courses.degree === 'Arts' || courses.degree === 'Education' || courses.degree === 'Fine Arts'
    ? 'Arts'
    : 'Science';
}

/**
 * The name of a course of `educationType` in education major `majorId`; `vocationalSubject`
 * names the occupation's own trade in vocational and associate courses. Undefined for a major
 * without named courses (the caller then uses the major's name).
 */
export function courseName(
  rng: DemoRandom,
  educationType: EducationType,
  majorId: number,
  vocationalSubject: string | undefined,
): string | undefined {
  const courses = FIELD_COURSES[majorId];
  if (courses === undefined) return undefined;
  const subject = vocationalSubject ?? courses.field;
  switch (educationType) {
    case 'VOCATIONAL':
      return rng.chance(0.5) ? `Vocational Diploma in ${subject}` : `Technical Certificate in ${subject}`;
    case 'ASSOCIATE':
      return rng.chance(0.5) ? `Associate Diploma in ${subject}` : `Higher National Diploma in ${subject}`;
    case 'BACHELOR':
      return courses.bachelors ? rng.pick(courses.bachelors) : `Bachelor of ${courses.degree} in ${courses.field}`;
    case 'MASTERS': {
      const graduate = rng.pick(courses.graduate);
      if (graduate === 'Business Administration') return 'Master of Business Administration (MBA)';
      if (graduate === 'International Law') return 'Master of Laws (LLM) in International Law';
      return `Master of ${graduateDegree(courses)} in ${graduate}`;
    }
    case 'DOCTORAL':
      return `PhD in ${rng.pick(courses.graduate)}`;
    default:
      return undefined;
  }
}
